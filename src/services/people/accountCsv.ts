import { invalid } from '../../errors';
import { normalizeEmail } from './members';

/** One line of an accounts file that can be looked up: the account on the connection, and its member's e-mail. */
export interface AccountLine {
  line: number;
  account: string;
  email: string;
}

/** A line that was refused, with the reason to fix it. */
export interface RejectedLine {
  line: number;
  reason: string;
}

/** A file of people's lines (accounts, members): the lines read, and those refused with why. */
export interface CsvFile<L> {
  lines: L[];
  rejected: RejectedLine[];
}

export type AccountFile = CsvFile<AccountLine>;

/** What the link tables keep of an account (user_apps.external_user_id, user_git_apps.username), and of an address. */
const MAX_ACCOUNT = 200;
const MAX_EMAIL = 320;
const EMAIL = /^[^\s@",]{1,64}@[^\s@",]+\.[^\s@",]+$/;

/** Why a field is no e-mail address a member may have; undefined when it is one. */
export function emailProblem(email: string): string | undefined {
  if (!email) return 'the e-mail is empty';
  if (email.length > MAX_EMAIL) return `the e-mail is longer than ${MAX_EMAIL} characters`;
  if (!EMAIL.test(email)) return `"${email}" is not an e-mail address`;
  return undefined;
}

/** A file's columns: those every header names, in order, then those it may add after them. */
export interface CsvColumns {
  required: readonly string[];
  optional?: readonly string[];
  /** What the header line must be, said to whoever sends another: the columns and what each holds. */
  expected: string;
}

/**
 * A file of people (`apps link-users`, `gitapps link-users`, `orgs add-members`): a header line naming `columns`,
 * then one person per line, read as RFC 4180 says (CRLF or LF, a quoted field may hold commas and doubled quotes)
 * but a line at a time, so that a line's number is the file's. Blank lines are skipped; each other line has as many
 * fields as the header and is then what `lineOf` makes of them (by column name), or refused with the problem it
 * names. A file whose header is not one of the columns' is refused whole.
 */
export function readCsvFile<L>(text: string, columns: CsvColumns, lineOf: (fields: Record<string, string>, line: number) => L | { problem: string }): CsvFile<L> {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  const names = records.shift()?.fields?.map((f) => f.trim().toLowerCase());
  const optional = columns.optional ?? [];
  const known = [...columns.required, ...optional];
  if (!names || names.length < columns.required.length || names.length > known.length || names.some((n, i) => n !== known[i])) {
    throw invalid(`The file must start with the header line ${columns.expected}`);
  }
  const file: CsvFile<L> = { lines: [], rejected: [] };
  for (const record of records) {
    const { fields } = record;
    let read: L | { problem: string };
    if (!fields) read = { problem: record.problem ?? 'unreadable' };
    else if (fields.length !== names.length) read = { problem: `${fields.length} column${fields.length === 1 ? '' : 's'}, expected ${names.length} (${names.join(',')})` };
    else read = lineOf(Object.fromEntries(names.map((n, i) => [n, fields[i].trim()])), record.line);
    if (isProblem(read)) file.rejected.push({ line: record.line, reason: `malformed line: ${read.problem}` });
    else file.lines.push(read);
  }
  return file;
}

const isProblem = <L>(read: L | { problem: string }): read is { problem: string } => typeof read === 'object' && read !== null && 'problem' in read;

const ACCOUNT_COLUMNS: CsvColumns = { required: ['account', 'email'], expected: '"account,email" (the account on the connection, then the member\'s e-mail)' };

/** An accounts file (`apps link-users`, `gitapps link-users`): `account,email`, one account a line. */
export function readAccountFile(text: string): AccountFile {
  return readCsvFile<AccountLine>(text, ACCOUNT_COLUMNS, ({ account, email }, line) => {
    const problem = accountProblem(account) ?? emailProblem(email);
    return problem ? { problem } : { line, account, email: normalizeEmail(email) };
  });
}

function accountProblem(account: string): string | undefined {
  if (!account) return 'the account is empty';
  if (account.length > MAX_ACCOUNT) return `the account is longer than ${MAX_ACCOUNT} characters`;
  if (/[\x00-\x1f\x7f]/.test(account)) return 'the account holds a control character';
  return undefined;
}

/** A record of the file: its fields, or why they could not be read; `line` is where it starts. */
interface CsvRecord {
  line: number;
  fields?: string[];
  problem?: string;
}

/** The file's records, a line each, blank lines left out; a record whose quotes are wrong holds its problem instead of fields. */
function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let at = 0;
  let line = 1;
  while (at < text.length) {
    const start = line;
    const end = lineEnd(text, at);
    if (end.at === at) {
      at = end.next;
      line++;
      continue;
    }
    const fields: string[] = [];
    let problem: string | undefined;
    let field = '';
    let i = at;
    for (;;) {
      if (text[i] === '"') {
        const closed = quoted(text, i + 1);
        if (closed === undefined) {
          problem = 'a quoted field is not closed on its line';
          break;
        }
        field = closed.value;
        i = closed.next;
        if (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          problem = 'text after a closing quote';
          break;
        }
      } else {
        const begin = i;
        while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          if (text[i] === '"') problem ??= 'a quote inside a field that does not start with one';
          i++;
        }
        field = text.slice(begin, i);
      }
      fields.push(field);
      if (text[i] !== ',') break;
      i++;
    }
    const rest = lineEnd(text, i);
    at = rest.next;
    records.push(problem ? { line: start, problem } : { line: start, fields });
    line++;
  }
  return records;
}

/** The end of the line holding `from` (its break excluded), and where the next line starts. */
function lineEnd(text: string, from: number): { at: number; next: number } {
  let i = from;
  while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
  if (text[i] === '\r' && text[i + 1] === '\n') return { at: i, next: i + 2 };
  return { at: i, next: i < text.length ? i + 1 : i };
}

/**
 * A quoted field's value from just after its opening quote, quotes doubled inside; undefined when its line ends
 * first. RFC 4180 lets a quoted field hold line breaks, but no account or address does, and a stray quote would
 * then swallow the lines after it: each line is read on its own, and such a line is refused.
 */
function quoted(text: string, from: number): { value: string; next: number } | undefined {
  let value = '';
  for (let i = from; i < text.length && text[i] !== '\n' && text[i] !== '\r'; i++) {
    if (text[i] !== '"') value += text[i];
    else if (text[i + 1] === '"') value += text[i++];
    else return { value, next: i + 1 };
  }
  return undefined;
}
