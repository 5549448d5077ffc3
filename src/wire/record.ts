/**
 * An object (not null, not an array) whose members can be read by name: a parsed JSON body's object, or the fields
 * a library's error carries (`type`, `status`, `code`).
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON object this service stored as text (an audit entry's details, an event's attributes), parsed. */
export function storedObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  if (!isRecord(value)) throw new Error(`Stored JSON is not an object: ${text.slice(0, 40)}`);
  return value;
}
