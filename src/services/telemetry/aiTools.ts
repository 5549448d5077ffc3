import type { Attributes, AttributeValue } from './batch';

/**
 * What the AI coding tools report and which figure of `ai-usage` (docs/metrics.md#ai-review-and-cost-figures) each report adds to: the one
 * place that knows Claude Code's, Gemini CLI's and Codex's metric and event names. A name not listed here is
 * stored (a point or an event) and adds to no figure.
 */
export const AI_MEASURES = [
  'sessions',
  'prompts',
  'api_requests',
  'active_seconds_user',
  'active_seconds_cli',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'cost_usd',
  'lines_added',
  'lines_removed',
  'commits',
  'pull_requests',
  'edits_accepted',
  'edits_rejected',
] as const;
export type AiMeasure = (typeof AI_MEASURES)[number];

export const AI_TOOLS = ['claude_code', 'gemini_cli', 'codex'] as const;
export type AiTool = (typeof AI_TOOLS)[number];

/** A report's share of one figure; `model` is set for figures that have one (tokens, cost), else ''. */
export interface Contribution {
  measure: AiMeasure;
  value: number;
  model: string;
}

type Rule = (value: number, attributes: Attributes) => Contribution[];

const text = (v: AttributeValue | undefined): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: AttributeValue | undefined): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const modelOf = (a: Attributes) => text(a.model).slice(0, 100);

/** Adds the value to one figure, with no model. */
const plain =
  (measure: AiMeasure): Rule =>
  (value) => [{ measure, value, model: '' }];

/** Adds the value to the figure the attribute `key` names (e.g. `type: added` → lines_added); other values add nothing. */
const byAttribute =
  (key: string, measures: Record<string, AiMeasure>, withModel = false): Rule =>
  (value, a) => {
    const measure = measures[text(a[key])];
    return measure ? [{ measure, value, model: withModel ? modelOf(a) : '' }] : [];
  };

/** A per-event count: each record adds one. */
const once = (measure: AiMeasure): Rule => () => [{ measure, value: 1, model: '' }];

/** Figures an event carries in its attributes (Codex reports tokens per response, not as metrics). */
const fromAttributes =
  (fields: Record<string, AiMeasure>, when?: (a: Attributes) => boolean): Rule =>
  (_value, a) => {
    if (when && !when(a)) return [];
    return Object.entries(fields).flatMap(([field, measure]) => {
      const n = num(a[field]);
      // Bounded as metric values are (src/otlp/schema.ts): a sum must stay within a DOUBLE column.
      return Math.abs(n) <= 1e15 && n !== 0 ? [{ measure, value: n, model: modelOf(a) }] : [];
    });
  };

const METRICS: Record<string, Rule> = {
  // Claude Code (code.claude.com/docs/en/monitoring-usage)
  'claude_code.session.count': plain('sessions'),
  'claude_code.token.usage': byAttribute('type', { input: 'input_tokens', output: 'output_tokens', cacheRead: 'cache_read_tokens', cacheCreation: 'cache_creation_tokens' }, true),
  'claude_code.cost.usage': (value, a) => [{ measure: 'cost_usd', value, model: modelOf(a) }],
  'claude_code.lines_of_code.count': byAttribute('type', { added: 'lines_added', removed: 'lines_removed' }),
  'claude_code.commit.count': plain('commits'),
  'claude_code.pull_request.count': plain('pull_requests'),
  'claude_code.code_edit_tool.decision': byAttribute('decision', { accept: 'edits_accepted', reject: 'edits_rejected' }),
  'claude_code.active_time.total': byAttribute('type', { user: 'active_seconds_user', cli: 'active_seconds_cli' }),
  // Gemini CLI (its docs/telemetry.md): thought tokens are billed as output, tool-use prompt tokens as input.
  'gemini_cli.session.count': plain('sessions'),
  'gemini_cli.token.usage': byAttribute('type', { input: 'input_tokens', output: 'output_tokens', thought: 'output_tokens', cache: 'cache_read_tokens', tool: 'input_tokens' }, true),
  'gemini_cli.api.request.count': plain('api_requests'),
  'gemini_cli.lines.changed': byAttribute('type', { added: 'lines_added', removed: 'lines_removed' }),
};

const EVENTS: Record<string, Rule> = {
  'claude_code.user_prompt': once('prompts'),
  'claude_code.api_request': once('api_requests'),
  'gemini_cli.user_prompt': once('prompts'),
  // Codex (its docs/config.md, "otel"): events only.
  'codex.conversation_starts': once('sessions'),
  'codex.user_prompt': once('prompts'),
  'codex.api_request': once('api_requests'),
  'codex.sse_event': fromAttributes(
    { input_token_count: 'input_tokens', output_token_count: 'output_tokens', cached_token_count: 'cache_read_tokens' },
    (a) => text(a['event.kind']) === 'response.completed',
  ),
};

/** The tool a metric or event name belongs to, by its namespace. */
export function toolOf(name: string): AiTool | undefined {
  return AI_TOOLS.find((tool) => name.startsWith(`${tool}.`));
}

/** What a Sum point's delta adds to the figures; nothing for names outside the catalogue. */
export function metricContributions(name: string, delta: number, attributes: Attributes): Contribution[] {
  return METRICS[name]?.(delta, attributes) ?? [];
}

/** What one event adds to the figures. */
export function eventContributions(name: string, attributes: Attributes): Contribution[] {
  return EVENTS[name]?.(1, attributes) ?? [];
}
