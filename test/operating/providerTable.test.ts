import fs from 'node:fs';
import path from 'node:path';
import { INTEGRATIONS } from '../../src/integrations/registry';

/**
 * docs/architecture.md#integrations lists the providers as the registry does (src/integrations/registry.ts, the only
 * list): the same ids in the same order, each with its name, category, what it offers and its folder.
 */

const ROOT = path.resolve(__dirname, '..', '..');

function documentedRows(): string[][] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = text.slice(text.indexOf('## Integrations'), text.indexOf('### Adding a provider'));
  return section
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

test('the docs table is the registry', () => {
  const expected = INTEGRATIONS.map((p) => {
    const offers = [...('webhook' in p ? ['webhook'] : []), ...('puller' in p ? ['puller'] : [])].join(', ');
    const folder = `src/integrations/${p.id}/`;
    return [`\`${p.id}\``, p.name, p.category, offers, `[${folder}](../${folder})`];
  });
  expect(documentedRows()).toEqual(expected);
  for (const p of INTEGRATIONS) expect(fs.existsSync(path.join(ROOT, 'src', 'integrations', p.id, 'index.ts'))).toBe(true);
});
