/**
 * What `apps` and `gitapps` share of linking members' accounts (docs/trackers.md#accounts): `link-users` (a file of
 * accounts and e-mails) and `unlinked` (the accounts with activity and no member), parsed and printed the same way,
 * each naming its connection by its own flag (--app, --git-app).
 */
import fs from 'node:fs';
import { invalid } from '../src/errors';
import { readAccountFile } from '../src/services/people/accountCsv';
import { AccountLinkWriter, LinkedLine, LinkReport } from '../src/services/people/accountLinks';
import type { LinkTable } from '../src/services/people/linkTables';
import { UNLINKED_LIMIT, unlinkedAccounts, UnlinkedAccount } from '../src/services/people/unmatchedAccounts';
import { nonEmpty, parse, table, UsageError } from './cli';

export interface LinkUsersCommand {
  kind: 'link-users';
  connection: string;
  csv: string;
  dryRun: boolean;
  json: boolean;
}

export interface UnlinkedCommand {
  kind: 'unlinked';
  connection: string;
  json: boolean;
}

/** A file larger than this is no list of accounts: refused before it is read. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** The usage lines of both commands, for a CLI's USAGE. */
export const accountLinkUsage = (cli: string, flag: string) => `  npm run ${cli} -- link-users ${flag} <id> --csv <file> [--dry-run] [--json]
  npm run ${cli} -- unlinked ${flag} <id> [--json]`;

export function parseLinkUsers(rest: string[], flag: 'app' | 'git-app'): LinkUsersCommand {
  const { values } = parse(rest, { [flag]: { type: 'string' }, csv: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  const v = values as Record<string, string | boolean | undefined>;
  const connection = nonEmpty(`--${flag}`, stringOf(v[flag]));
  const csv = nonEmpty('--csv', stringOf(v.csv));
  if (!connection) throw new UsageError(`link-users needs --${flag} <id>`);
  if (!csv) throw new UsageError('link-users needs --csv <file> (a header line "account,email", then one account a line)');
  return { kind: 'link-users', connection, csv, dryRun: v['dry-run'] === true, json: v.json === true };
}

export function parseUnlinked(rest: string[], flag: 'app' | 'git-app'): UnlinkedCommand {
  const { values } = parse(rest, { [flag]: { type: 'string' }, json: { type: 'boolean' } });
  const v = values as Record<string, string | boolean | undefined>;
  const connection = nonEmpty(`--${flag}`, stringOf(v[flag]));
  if (!connection) throw new UsageError(`unlinked needs --${flag} <id>`);
  return { kind: 'unlinked', connection, json: v.json === true };
}

const stringOf = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

/** Links the file's good lines; exit code 1 when some lines were refused (the good ones linked all the same). */
export async function runLinkUsers(writer: AccountLinkWriter, links: LinkTable, cmd: LinkUsersCommand, out: (s: string) => void): Promise<number> {
  const report = await writer.linkFile(links, cmd.connection, readAccountFile(fileText(cmd.csv)), { dryRun: cmd.dryRun });
  out(cmd.json ? `${JSON.stringify(report)}\n` : reportText(links, cmd.connection, report));
  return report.rejected.length ? 1 : 0;
}

export async function runUnlinked(links: LinkTable, cmd: UnlinkedCommand, out: (s: string) => void): Promise<void> {
  const listed = await unlinkedAccounts(links, cmd.connection);
  if (cmd.json) return out(`${JSON.stringify(listed)}\n`);
  if (listed.accounts.length === 0) return out(`No account of ${links.connectionNoun} ${listed.connection_id} with activity lacks a member.\n`);
  const rows = listed.accounts.map((a) => [a.account, String(a.activity), what(a), a.last_seen_at]);
  const shown = listed.total > listed.accounts.length ? `the ${UNLINKED_LIMIT} busiest of ${listed.total}` : `${listed.total}`;
  out(
    `${table([['ACCOUNT', 'ACTIVITY', 'OF WHICH', 'LAST SEEN'], ...rows])}\n\n` +
      `${shown} account${listed.total === 1 ? '' : 's'} with no member, busiest first. Link them with link-user or link-users; ` +
      'an e-mail is a commit author seen without a user name: give that address to the member instead.\n',
  );
}

/** A `--csv` file's text; one that is too large or cannot be read is refused, saying which and why. */
export function fileText(file: string): string {
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) throw invalid(`--csv ${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB: split it`);
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof Error && 'code' in e) throw invalid(`Cannot read --csv ${file}: ${e.message}`);
    throw e;
  }
}

const KIND_NAMES: Record<string, [string, string]> = {
  commit: ['commit', 'commits'],
  pull_request: ['pull request', 'pull requests'],
  review: ['review', 'reviews'],
  task_assigned: ['task assigned', 'tasks assigned'],
  message: ['message', 'messages'],
};

function what(account: UnlinkedAccount): string {
  return Object.entries(account.by_kind)
    .map(([kind, n]) => `${n} ${KIND_NAMES[kind][n === 1 ? 0 : 1]}`)
    .join(', ');
}

function reportText(links: LinkTable, connection: string, report: LinkReport): string {
  const line = (l: LinkedLine) => `  line ${l.line}: ${l.account} → ${l.user_id} (${l.email})\n`;
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const head = report.dry_run
    ? `Dry run, nothing changed: would link ${plural(report.linked.length, 'account')} of ${links.connectionNoun} ${connection}` +
      `${report.already_linked.length ? ` (${report.already_linked.length} already linked)` : ''}${report.linked.length ? ':' : '.'}\n` +
      report.linked.map(line).join('')
    : `Linked ${plural(report.linked.length, 'account')} of ${links.connectionNoun} ${connection}` +
      `${report.already_linked.length ? ` (${report.already_linked.length} already linked)` : ''}.\n`;
  if (report.rejected.length === 0) return head;
  return `${head}${plural(report.rejected.length, 'line')} refused:\n${report.rejected.map((r) => `  line ${r.line}: ${r.reason}\n`).join('')}`;
}
