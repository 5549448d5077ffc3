/**
 * The marks AI coding tools leave on the commits and pull requests they help write (docs/metrics.md#ai-review-and-cost-figures): the one list,
 * read on ingest, by the importer, by the demo seed and by the migration that filled it in for history. A commit is marked by its
 * message, a pull request by its description; trailers are read on their own lines, in any case.
 */
const TOOLS = ['claude', 'gemini', 'codex', 'copilot', 'cursor', 'aider', 'opencode', 'windsurf'];
const ADDRESSES = ['noreply@anthropic.com', 'noreply@aider.chat', 'noreply@opencode.ai', 'cursoragent@cursor.com'];

export const AI_MARKERS: readonly RegExp[] = [
  // Claude Code: `Co-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>`; Aider, OpenCode, Cursor, Gemini's and
  // Copilot's agents, Codex when configured: a co-author naming the tool or writing from its address.
  new RegExp(`^co-authored-by:[^\\n]*\\b(${TOOLS.join('|')})\\b`, 'im'),
  new RegExp(`^co-authored-by:[^\\n]*(${ADDRESSES.map((a) => a.replace(/\./g, '\\.')).join('|')})`, 'im'),
  // The trailers the Linux kernel, Fedora and Apache projects ask for instead of a co-author.
  /^(assisted|generated)-by:[ \t]*\S/im,
  // Claude Code's footer on commits and pull request descriptions: `🤖 Generated with [Claude Code](…)`.
  /generated with \[?(claude code|gemini cli|codex)\b/i,
];

/** Whether a commit message or pull request description carries an AI tool's mark. */
export const hasAiMarker = (text: string | null | undefined): boolean => !!text && AI_MARKERS.some((marker) => marker.test(text));

/** Substrings every marked text contains (lower case): a cheap `LIKE` before the markers are tested on a row. */
export const AI_MARKER_HINTS = ['co-authored-by:', 'assisted-by:', 'generated-by:', 'generated with'] as const;
