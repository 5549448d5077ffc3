import fs from 'node:fs';
import path from 'node:path';
import { INTEGRATIONS } from '../../src/integrations/registry';
import type { IntegrationProvider } from '../../src/integrations/provider';

/**
 * docs/architecture.md#integrations lists the providers as the registry does (src/integrations/registry.ts, the only
 * list): the same ids in the same order, each with its name, category, what it offers and its folder.
 */

const ROOT = path.resolve(__dirname, '..', '..');

/** The table's rows as they stand in the docs. */
function documentedRows(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = text.slice(text.indexOf('## Integrations'), text.indexOf('### Adding a provider'));
  return section.split('\n').filter((line) => /^\| `/.test(line));
}

/** A provider's row as the docs hold it: a failure shows the line to paste. */
function rowOf(provider: (typeof INTEGRATIONS)[number]): string {
  const offers = [...('webhook' in provider ? ['webhook'] : []), ...('puller' in provider ? ['puller'] : []), ...('history' in provider ? ['history'] : [])].join(', ');
  const folder = `src/integrations/${provider.id}/`;
  return `| \`${provider.id}\` | ${provider.name} | ${provider.category} | ${offers} | [${folder}](../${folder}) |`;
}

test('the docs table is the registry', () => {
  expect(documentedRows()).toEqual(INTEGRATIONS.map(rowOf));
  for (const p of INTEGRATIONS) expect(fs.existsSync(path.join(ROOT, 'src', 'integrations', p.id, 'index.ts'))).toBe(true);
});

test('every provider that pushes says what to set at its end, naming the docs section that says more', () => {
  const providers: readonly IntegrationProvider[] = INTEGRATIONS;
  for (const provider of providers.filter((p) => p.webhook)) {
    expect([provider.id, typeof provider.setup]).toEqual([provider.id, 'string']);
  }
  const ROOT = path.resolve(__dirname, '..', '..');
  for (const provider of providers) {
    for (const [, file, anchor] of (provider.setup ?? '').matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)) {
      const headings = fs.readFileSync(path.join(ROOT, 'docs', file), 'utf8').match(/^#+ .+$/gm) ?? [];
      const anchors = headings.map((h) => h.replace(/^#+ /, '').toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
      expect([provider.id, anchors]).toEqual([provider.id, expect.arrayContaining([anchor])]);
    }
  }
});
