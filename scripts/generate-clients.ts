import fs from 'node:fs';
import path from 'node:path';
import { renderRestTypes, REST_TYPES_FILE } from './restTypes';
import { loadDocument } from './clients/document';
import { renderPython } from './clients/python';
import { HAS_GO, renderGo } from './clients/go';

/**
 * `npm run client:generate` writes every client generated from the OpenAPI document: the TypeScript types of the
 * REST client, and the generated files of the Python and Go clients. `-- --check` only says whether the committed ones are
 * current (CI runs it), and fails when any is stale.
 */
const ROOT = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
const document = loadDocument();
const outputs: Record<string, string> = {
  [path.relative(ROOT, REST_TYPES_FILE)]: renderRestTypes(),
  ...renderPython(document),
  // Go's files are gofmt's output: without the Go toolchain they are left as they are, and said so.
  ...(HAS_GO ? renderGo(document) : {}),
};
if (!HAS_GO) process.stderr.write('clients/go: not generated or checked here: install Go (apt-get install golang-go)\n');

const stale: string[] = [];
for (const [relative, fresh] of Object.entries(outputs)) {
  const file = path.join(ROOT, relative);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (fresh === current) continue;
  stale.push(relative);
  if (!check) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, fresh);
  }
}
if (check && stale.length) {
  process.stderr.write(`stale: ${stale.join(', ')}: run "npm run client:generate" and commit them\n`);
  process.exit(1);
}
process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : `${Object.keys(outputs).length} generated files are up to date\n`);
