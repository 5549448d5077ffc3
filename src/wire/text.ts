/**
 * Control characters (C0 and DEL) have no place in an id, a name or a query parameter; a NUL would also end an
 * SQLite statement early (db/connection.ts). Each surface refuses them at its edge in its own terms.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export const hasControlCharacters = (text: string) => CONTROL_CHARACTERS.test(text);

/** Whether any string in a parsed JSON value (keys included) holds a NUL. Text fields may hold line feeds; none a NUL. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v));
  return false;
}

/** The decoded path of a URL, or undefined when an escape in it is malformed. */
export function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}
