import fs from 'node:fs';
import path from 'node:path';
import { renderRestTypes, REST_TYPES_FILE } from './restTypes';

/** `npm run client:generate` writes the types; `-- --check` only says whether the committed ones are current. */
const check = process.argv.includes('--check');
const fresh = renderRestTypes();
const current = fs.existsSync(REST_TYPES_FILE) ? fs.readFileSync(REST_TYPES_FILE, 'utf8') : '';
const relative = path.relative(process.cwd(), REST_TYPES_FILE);
if (check) {
  if (fresh !== current) {
    process.stderr.write(`${relative} is stale: run "npm run client:generate" and commit it\n`);
    process.exit(1);
  }
  process.stdout.write(`${relative} is up to date\n`);
} else {
  fs.writeFileSync(REST_TYPES_FILE, fresh);
  process.stdout.write(fresh === current ? `${relative} was already up to date\n` : `wrote ${relative}\n`);
}
