import type { Attributes } from './batch';

/**
 * What is never stored, whatever the sender enables (docs/telemetry.md): prompt text, tool input or parameters, API
 * request and response bodies. Claude Code sends them with OTEL_LOG_USER_PROMPTS / OTEL_LOG_TOOL_DETAILS,
 * Gemini CLI with `logPrompts`, Codex with `log_user_prompt`; the names below are theirs.
 */
const NEVER_STORED = new Set([
  'prompt',
  'user_prompt',
  'tool_input',
  'tool_parameters',
  'function_args',
  'arguments',
  'request_body',
  'response_body',
  'api_request_body',
  'api_response_body',
  'request_text',
  'response_text',
]);

const neverStored = (key: string) => NEVER_STORED.has(key) || NEVER_STORED.has(key.slice(key.lastIndexOf('.') + 1));

/** Attributes without what is never stored (the same object when nothing is), and how many were dropped. */
export function withoutNeverStored(attributes: Attributes): { kept: Attributes; dropped: number } {
  const keys = Object.keys(attributes);
  if (!keys.some(neverStored)) return { kept: attributes, dropped: 0 };
  const kept: Attributes = {};
  for (const key of keys) if (!neverStored(key)) kept[key] = attributes[key];
  return { kept, dropped: keys.length - Object.keys(kept).length };
}

export const EVENT_ATTRIBUTES_LIMIT_BYTES = 4096;

/**
 * An event's attributes as stored: at most 4 KB of JSON. Attributes are kept in the order sent until the next
 * would not fit; `dropped_attributes` then says how many did not.
 */
export function storedAttributes(attributes: Attributes): string {
  // Most records fit whole; the entries below sum to the same size (each with its comma).
  const whole = JSON.stringify(attributes);
  if (Buffer.byteLength(whole) + 1 + 40 <= EVENT_ATTRIBUTES_LIMIT_BYTES) return whole;
  const kept: Attributes = {};
  let size = 2;
  let dropped = 0;
  for (const [key, value] of Object.entries(attributes)) {
    const entry = Buffer.byteLength(JSON.stringify({ [key]: value })) - 1;
    if (size + entry + 40 > EVENT_ATTRIBUTES_LIMIT_BYTES) {
      dropped++;
      continue;
    }
    kept[key] = value;
    size += entry;
  }
  if (dropped) kept.dropped_attributes = dropped;
  return JSON.stringify(kept);
}
