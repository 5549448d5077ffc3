import { hasAiMarker } from '../../db/rollups/aiMarkers';

/** The marks AI coding tools leave, as they write them (docs/metrics.md#ai-review-and-cost-figures), and look-alikes that are not theirs. */
test.each([
  ['Claude Code’s trailer', 'Fix login\n\nCo-Authored-By: Claude <noreply@anthropic.com>'],
  ['Claude Code’s trailer naming the model', 'Fix login\n\nCo-Authored-By: Claude Opus 4.6 <noreply@anthropic.com>'],
  ['Claude Code’s footer alone (a pull request description)', '## Summary\n- adds retries\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)'],
  ['Aider’s co-author', 'feat: add cache\n\nCo-authored-by: aider (gpt-4o) <noreply@aider.chat>'],
  ['OpenCode’s co-author', 'fix: typo\n\nCo-Authored-By: opencode <noreply@opencode.ai>'],
  ['Gemini Code Assist’s co-author', 'refactor\n\nCo-authored-by: gemini-code-assist[bot] <176961590+gemini-code-assist[bot]@users.noreply.github.com>'],
  ['Copilot’s coding agent', 'Update docs\n\nCo-authored-by: Copilot <198982749+Copilot@users.noreply.github.com>'],
  ['Codex, configured to sign', 'chore: bump\n\nCo-authored-by: Codex <codex@openai.com>'],
  ['Cursor’s agent', 'wip\n\nCo-authored-by: Cursor Agent <cursoragent@cursor.com>'],
  ['the kernel’s and Fedora’s Assisted-by', 'net: fix leak\n\nAssisted-by: claude-opus-5\nSigned-off-by: A Dev <a@dev.test>'],
  ['a lower-case trailer', 'x\n\nco-authored-by: claude <noreply@anthropic.com>'],
])('marked: %s', (_name, text) => expect(hasAiMarker(text)).toBe(true));

test.each([
  ['a human co-author', 'Pair on login\n\nCo-authored-by: Jane Doe <jane@example.com>'],
  ['a co-author whose name only begins like a tool', 'Pair\n\nCo-authored-by: Claudette Smith <claudette@example.com>'],
  ['a subject that mentions a tool', 'Fix the Claude Code integration test'],
  ['a trailer word inside a sentence', 'Document how we are co-authored-by: claude in reviews'],
  ['no text', ''],
])('not marked: %s', (_name, text) => expect(hasAiMarker(text)).toBe(false));

test('null and undefined are not marked', () => {
  expect(hasAiMarker(null)).toBe(false);
  expect(hasAiMarker(undefined)).toBe(false);
});
