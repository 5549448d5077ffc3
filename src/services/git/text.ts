/** Provider text cut to a column's length in characters (code points, as MySQL counts them), never mid-character. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/** Column lengths of the git tables (db/migrations). */
export const LIMITS = { name: 200, message: 500, title: 300, environment: 200, priority: 50 } as const;
