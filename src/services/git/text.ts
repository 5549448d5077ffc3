/** Provider text cut to a column's length in characters (code points, as MySQL counts them), never mid-character. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/** Column lengths of the git tables (db/migrations). */
export const LIMITS = { name: 200, message: 500, title: 300, environment: 200, priority: 50, login: 255 } as const;

/** An account's login as kept for the bot settings (`author_login`, `actor_login`); a longer one is no provider's. */
export const storedLogin = (login: string | null): string | null => (login === null ? null : clip(login, LIMITS.login));
