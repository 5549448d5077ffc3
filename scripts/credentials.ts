/**
 * What `apps` and `gitapps` share of `set-credential` (docs/ingest.md#credentials-for-reading-the-providers-api): the
 * command parsed and printed the same way, each naming its connection by its own flag (--app, --git-app). The files
 * are read when the command runs, so the secret is in neither the shell's history nor the process list.
 */
import fs from 'node:fs';
import { invalid } from '../src/errors';
import { Connection, ConnectionCredentials, Credential, MAX_CREDENTIAL_BYTES } from '../src/services/apps/credentials';
import { nonEmpty, parse, UsageError } from './cli';

/** The credential as given: the files it is read from, and for a GitHub App its two ids. */
type CredentialFiles = { kind: 'token'; tokenFile: string } | { kind: 'github_app'; appId: string; installationId: string; privateKeyFile: string };

export interface SetCredentialCommand {
  kind: 'set-credential';
  connection: string;
  files: CredentialFiles;
  json: boolean;
}

/** The usage line of a git app's form (either kind), or an app's (a token only). */
export const setCredentialUsage = (cli: 'apps' | 'gitapps') =>
  cli === 'gitapps'
    ? `  npm run gitapps -- set-credential --git-app <id> --token-file <file> [--json]
  npm run gitapps -- set-credential --git-app <id> --github-app-id <n> --private-key-file <file> --installation-id <n> [--json]`
    : '  npm run apps -- set-credential --app <id> --token-file <file> [--json]';

const GITHUB_APP_FLAGS = ['github-app-id', 'private-key-file', 'installation-id'] as const;

export function parseSetCredential(rest: string[], flag: 'app' | 'git-app'): SetCredentialCommand {
  const githubApp = flag === 'git-app' ? Object.fromEntries(GITHUB_APP_FLAGS.map((f) => [f, { type: 'string' as const }])) : {};
  const { values } = parse(rest, { [flag]: { type: 'string' }, 'token-file': { type: 'string' }, ...githubApp, json: { type: 'boolean' } });
  const v = values as Record<string, string | boolean | undefined>;
  const given = (name: string) => nonEmpty(`--${name}`, typeof v[name] === 'string' ? v[name] : undefined)?.trim();
  const connection = given(flag);
  if (!connection) throw new UsageError(`set-credential needs --${flag} <id>`);
  const tokenFile = given('token-file');
  const named = GITHUB_APP_FLAGS.filter((f) => given(f) !== undefined);
  const json = v.json === true;
  if (tokenFile !== undefined && named.length) throw new UsageError(`give --token-file, or a GitHub App's ${GITHUB_APP_FLAGS.map((f) => `--${f}`).join(', ')}: not both`);
  if (tokenFile !== undefined) return { kind: 'set-credential', connection, files: { kind: 'token', tokenFile }, json };
  if (named.length === 0) {
    throw new UsageError(`set-credential needs --token-file <file holding the token>${flag === 'git-app' ? `, or for a GitHub App ${GITHUB_APP_FLAGS.map((f) => `--${f}`).join(', ')}` : ''}`);
  }
  const missing = GITHUB_APP_FLAGS.filter((f) => !named.includes(f));
  if (missing.length) throw new UsageError(`a GitHub App's credential also needs ${missing.map((f) => `--${f}`).join(', ')}`);
  const files = { kind: 'github_app' as const, appId: given('github-app-id')!, installationId: given('installation-id')!, privateKeyFile: given('private-key-file')! };
  return { kind: 'set-credential', connection, files, json };
}

/** Stores the credential read from its files; prints its kind and when, never its value. */
export async function runSetCredential(credentials: ConnectionCredentials, type: Connection['type'], cmd: SetCredentialCommand, out: (s: string) => void): Promise<void> {
  const receipt = await credentials.setCredential({ type, id: cmd.connection }, credentialFrom(cmd.files));
  if (cmd.json) return out(`${JSON.stringify(receipt)}\n`);
  const what = cmd.files.kind === 'token' ? 'token' : `GitHub App ${cmd.files.appId}'s key for installation ${cmd.files.installationId}`;
  out(
    `Stored the ${what} of ${type === 'git_app' ? 'git app' : 'app'} ${receipt.id}, sealed; it is never shown. The history importers read ` +
      "the provider's API with it; set-credential again replaces it.\n",
  );
}

function credentialFrom(files: CredentialFiles): Credential {
  if (files.kind === 'token') return { kind: 'token', token: fileText('--token-file', files.tokenFile) };
  return { kind: 'github_app', appId: files.appId, installationId: files.installationId, privateKey: fileText('--private-key-file', files.privateKeyFile) };
}

/**
 * A credential file's text. A file far larger than any credential is refused before it is read (the service refuses
 * one whose credential passes MAX_CREDENTIAL_BYTES; this leaves room for the blank lines around it).
 */
function fileText(flag: string, file: string): string {
  try {
    if (fs.statSync(file).size > 2 * MAX_CREDENTIAL_BYTES) throw invalid(`${flag} ${file} holds more than ${MAX_CREDENTIAL_BYTES / 1024} KB: it must hold one credential and nothing else`);
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof Error && 'code' in e) throw invalid(`Cannot read ${flag} ${file}: ${e.message}`);
    throw e;
  }
}
