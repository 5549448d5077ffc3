/**
 * Control characters (C0 and DEL) have no place in an id, a name or a query parameter; a NUL would also end an
 * SQLite statement early (db/connection.ts). Each surface refuses them at its edge in its own terms.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export const hasControlCharacters = (text: string) => CONTROL_CHARACTERS.test(text);

/**
 * Whether any string in a parsed JSON value (keys included) holds a NUL. Text fields may hold line feeds; none a NUL.
 * Walked with a stack of its own: a body of deeply nested arrays must not exhaust the call stack (a 500).
 */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (next.includes('\u0000')) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next && typeof next === 'object') {
      for (const [key, child] of Object.entries(next)) {
        if (key.includes('\u0000')) return true;
        pending.push(child);
      }
    }
  }
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
