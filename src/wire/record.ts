/**
 * An object (not null, not an array) whose members can be read by name: a parsed JSON body's object, or the fields
 * a library's error carries (`type`, `status`, `code`).
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
