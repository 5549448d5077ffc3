import fs from 'node:fs';
import path from 'node:path';

/**
 * README.md, docs/*.md and the provider folders' READMEs as a newcomer reads them: every relative link leads to a file that exists and, when it
 * names a heading, to a heading (or an `<a id>`) of that file; every `npm run <script>` they name is one of
 * package.json's scripts; and docs/operating.md's configuration table names exactly the variables src/config.ts reads.
 */

const ROOT = path.resolve(__dirname, '..', '..');
/** The provider folders' READMEs (src/integrations/<provider>/README.md) are read first by whoever adds the next one. */
const PROVIDER_READMES = fs
  .readdirSync(path.join(ROOT, 'src', 'integrations'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(ROOT, 'src', 'integrations', entry.name, 'README.md')))
  .map((entry) => `src/integrations/${entry.name}/README.md`);
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...PROVIDER_READMES];

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The text outside fenced code blocks, line by line (a `#` in a shell example is no heading, a `[x](y)` there no link). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of prose(read(file))) {
    for (const m of line.matchAll(/<a id="([^"]+)"/g)) found.add(m[1]);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return found;
}

/** Links in running text, code spans left out: their text and target. */
function links(file: string): { text: string; target: string }[] {
  return prose(read(file)).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)].map((m) => ({ text: m[1], target: m[2] })),
  );
}

test('every relative link in README.md and docs/ leads to a file and heading that exist, the file its text names', () => {
  const broken: string[] = [];
  for (const file of DOCS) {
    for (const { text, target } of links(file)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [where, anchor] = target.split('#');
      const to = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
      const named = /([\w-]+\.md)(#|$)/.exec(text)?.[1];
      if (named !== undefined && path.posix.basename(to) !== named) broken.push(`${file}: [${text}](${target}) (the text names ${named})`);
      if (!fs.existsSync(path.join(ROOT, to))) broken.push(`${file}: ${target} (no file ${to})`);
      else if (anchor !== undefined && !(to.endsWith('.md') && anchors(to).has(anchor))) broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
    }
  }
  expect(broken).toEqual([]);
});

test('every `npm run <script>` the docs name is a script of package.json', () => {
  const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  const unknown = DOCS.flatMap((file) =>
    [...read(file).matchAll(/npm run (?:-s\s+)?([a-z][\w:-]*)/g)].filter((m) => !Object.hasOwn(scripts, m[1])).map((m) => `${file}: npm run ${m[1]}`),
  );
  expect(unknown).toEqual([]);
});

/** The first group of `pattern` in `file`, or a failure saying what was not found. */
function part(file: string, pattern: RegExp): string {
  const found = pattern.exec(read(file));
  if (!found) throw new Error(`${file} no longer holds ${pattern}: update this test with it`);
  return found[1];
}

test("docs/operating.md's configuration table names every variable src/config.ts reads, and no other", () => {
  // The schema's keys: one `NAME: z…` line each, at the object's first level.
  const schema = part('src/config.ts', /const ConfigSchema = z\.object\(\{([\s\S]*?)\n\}\)/);
  const inSchema = new Set([...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]));
  const documented = new Set(
    part('docs/operating.md', /## Configuration\n([\s\S]*?)\n## /)
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1])),
  );
  expect(inSchema.size).toBeGreaterThan(30);
  expect({ undocumented: [...inSchema].filter((v) => !documented.has(v)), notRead: [...documented].filter((v) => !inSchema.has(v)) }).toEqual({
    undocumented: [],
    notRead: [],
  });
});
