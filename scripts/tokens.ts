/**
 * npm run tokens -- create --user <id|email> [--name N] [--expires-in 90d|12h|30m|10s | --expires-at ISO]
 *                         [--org ID]... [--team ID]... [--json]
 * npm run tokens -- create-scim --org <id> [--name N] [--json]
 * npm run tokens -- create-otlp --org <id> [--user <id|email>] [--name N] [--json]
 * npm run tokens -- list [--user <id|email>] [--json]
 * npm run tokens -- revoke <token-id>
 * npm run tokens -- managed-settings --org <id> --token otlp_…
 * npm run tokens -- login-link --user <id|email>
 *
 * Works on the database the server uses: DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH),
 * migrated first. The plain token is printed once by `create` and never again; `list` shows only its preview.
 * Exit codes: 0 done, 1 bad input (unknown user, team, token, past expiry, ...) or failure, 2 usage error
 * (managed-settings: also a --token that is not a live OTLP token of the organization).
 */
import { Config, loadConfig, publicBase } from '../src/config';
import { managedSettings } from '../src/services/telemetry/managedSettings';
import { User } from '../db/models';
import { describeDatabase } from '../db/connection';
import { commandOrExit, nonEmpty, openServerDatabase, parse, runCli, table, UsageError } from './cli';
import { parseDateParam } from '../src/wire/dates';
import { isWellFormedToken, OTLP_TOKEN_PREFIX } from '../src/auth/tokenFormat';
import { createLoginLink, findSignInUser } from '../src/auth/signIn';
import { checkOtlpToken, createOtlpToken } from '../src/auth/tokens/otlpTokens';
import { findUser, TokenInputError, TokenSummary } from '../src/auth/tokens/common';
import { createScimToken } from '../src/auth/tokens/scimTokens';
import { createToken, parseDuration } from '../src/auth/tokens/apiTokens';
import { isRevoked, listTokens, revokeToken } from '../src/auth/tokens/everyKind';

const USAGE = `Usage:
  npm run tokens -- create --user <id|email> [--name N]
                          [--expires-in 90d|12h|30m|10s | --expires-at ISO]
                          [--org ID]... [--team ID]... [--json]
  npm run tokens -- create-scim --org <id> [--name N] [--json]
  npm run tokens -- create-otlp --org <id> [--user <id|email>] [--name N] [--json]
  npm run tokens -- list [--user <id|email>] [--json]
  npm run tokens -- revoke <token-id>
  npm run tokens -- managed-settings --org <id> --token otlp_…
  npm run tokens -- login-link --user <id|email>

create    makes a token for the user and prints it once (only its SHA-256 hash is stored).
            --name        label shown by "list" (default: "API token")
            --expires-in  lifetime: a positive number with d, h, m or s (e.g. 90d)
            --expires-at  expiry as an ISO 8601 date (UTC midnight) or date-time with Z or an offset
                          (default: no expiry; give at most one of --expires-in and --expires-at)
            --org, --team narrow the token to these of the user's organizations / teams (repeatable)
            --json        print {"id","token","expires_at"} on one line
create-scim
          makes a SCIM token for the organization's identity provider (Okta, Entra ID, ...) and prints
          it once; it is accepted on /scim/v2 only, and API tokens are not accepted there.
            --name        label shown by "list" (default: "SCIM token")
            --json        print {"id","token"} on one line
create-otlp
          makes an OTLP token with which the organization's AI coding tools and other OpenTelemetry
          exporters send telemetry to /otlp, and prints it once; accepted on /otlp only.
            --user        bind it to this active member: everything sent with it is theirs
                          (default: none; each record's user.email says whose it is)
            --name        label shown by "list" (default: "OTLP token")
            --json        print {"id","token"} on one line
list      shows the tokens with preview and status, never the token itself: API and OTLP tokens (all,
          or one user's with --user) and SCIM tokens (without --user).
revoke    deactivates a token (API, SCIM or OTLP); it stops working within 5 seconds on every instance.
managed-settings
          prints the Claude Code managed-settings.json that sends an organization's telemetry here with
          the given OTLP token (endpoint: PUBLIC_URL, default http://localhost:$PORT, + /otlp); it
          must be an active token of that organization. Only the JSON is printed, so it can be
          redirected into the file: npm run -s tokens -- managed-settings ... > managed-settings.json
login-link
          prints a link that signs the user in to the settings page (PUBLIC_URL + /auth/link) once,
          within 10 minutes: for trying the settings without an identity provider (refused when
          OIDC_ISSUER is set: then everyone signs in through it).

Target: DATABASE_URL (mysql://...) or, when unset, the embedded SQLite file (SQLITE_PATH), which must
exist already. Each command first prints which database it opened (not with --json), and warns on stderr
when that database has no users.`;

export { UsageError };

export type Command =
  | { kind: 'help' }
  | {
      kind: 'create';
      user: string;
      name?: string;
      expiresIn?: string;
      expiresAt?: string;
      orgs: string[];
      teams: string[];
      json: boolean;
    }
  | { kind: 'create-scim'; org: string; name?: string; json: boolean }
  | { kind: 'create-otlp'; org: string; user?: string; name?: string; json: boolean }
  | { kind: 'list'; user?: string; json: boolean }
  | { kind: 'revoke'; id: string }
  | { kind: 'managed-settings'; org: string; token: string }
  | { kind: 'login-link'; user: string };

const COMMANDS = 'create, create-scim, create-otlp, list, revoke, managed-settings or login-link';

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`a command is required: ${COMMANDS}`);
  if (command === 'help' || command === '--help' || command === '-h') return { kind: 'help' };
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'create': {
      const { values } = parse(rest, {
        user: { type: 'string' },
        name: { type: 'string' },
        'expires-in': { type: 'string' },
        'expires-at': { type: 'string' },
        org: { type: 'string', multiple: true },
        team: { type: 'string', multiple: true },
        json: { type: 'boolean' },
      });
      const v = values as {
        user?: string;
        name?: string;
        'expires-in'?: string;
        'expires-at'?: string;
        org?: string[];
        team?: string[];
        json?: boolean;
      };
      const user = nonEmpty('--user', v.user);
      if (!user) throw new UsageError('create needs --user <id|email>');
      if (v['expires-in'] !== undefined && v['expires-at'] !== undefined) {
        throw new UsageError('give either --expires-in or --expires-at, not both');
      }
      return {
        kind: 'create',
        user,
        name: nonEmpty('--name', v.name),
        expiresIn: nonEmpty('--expires-in', v['expires-in']),
        expiresAt: nonEmpty('--expires-at', v['expires-at']),
        orgs: (v.org ?? []).map((o) => nonEmpty('--org', o)!),
        teams: (v.team ?? []).map((t) => nonEmpty('--team', t)!),
        json: v.json ?? false,
      };
    }
    case 'create-scim': {
      const { values } = parse(rest, { org: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; name?: string; json?: boolean };
      const org = nonEmpty('--org', v.org);
      if (!org) throw new UsageError('create-scim needs --org <organization id>');
      return { kind: 'create-scim', org, name: nonEmpty('--name', v.name), json: v.json ?? false };
    }
    case 'create-otlp': {
      const { values } = parse(rest, { org: { type: 'string' }, user: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; user?: string; name?: string; json?: boolean };
      const org = nonEmpty('--org', v.org);
      if (!org) throw new UsageError('create-otlp needs --org <organization id>');
      return { kind: 'create-otlp', org, user: nonEmpty('--user', v.user), name: nonEmpty('--name', v.name), json: v.json ?? false };
    }
    case 'managed-settings': {
      const { values } = parse(rest, { org: { type: 'string' }, token: { type: 'string' } });
      const v = values as { org?: string; token?: string };
      const org = nonEmpty('--org', v.org);
      if (!org || v.token === undefined) throw new UsageError('managed-settings needs --org <organization id> and --token otlp_…');
      // Said without echoing the value: a mistaken argument may well be some other live secret.
      if (!isWellFormedToken(v.token, OTLP_TOKEN_PREFIX)) {
        throw new UsageError('--token must be an OTLP token as create-otlp prints it (otlp_ and 36 letters and digits)');
      }
      return { kind: 'managed-settings', org, token: v.token };
    }
    case 'login-link': {
      const { values } = parse(rest, { user: { type: 'string' } });
      const user = nonEmpty('--user', (values as { user?: string }).user);
      if (!user) throw new UsageError('login-link needs --user <id|email>');
      return { kind: 'login-link', user };
    }
    case 'list': {
      const { values } = parse(rest, { user: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { user?: string; json?: boolean };
      return { kind: 'list', user: nonEmpty('--user', v.user), json: v.json ?? false };
    }
    case 'revoke': {
      const { positionals } = parse(rest, {}, true);
      if (positionals.length !== 1) throw new UsageError('revoke needs exactly one token id (see "tokens list")');
      return { kind: 'revoke', id: nonEmpty('token id', positionals[0])! };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use ${COMMANDS}`);
  }
}

/** The expiry a `create` asks for: --expires-in from now, --expires-at as given, or none. */
export function expiryOf(cmd: { expiresIn?: string; expiresAt?: string }, now: Date): Date | null {
  if (cmd.expiresIn !== undefined) return parseDuration(cmd.expiresIn, now);
  if (cmd.expiresAt === undefined) return null;
  const parsed = parseDateParam(cmd.expiresAt);
  if (!parsed) {
    throw new TokenInputError(
      `Invalid --expires-at '${cmd.expiresAt}'; use an ISO 8601 date (2026-01-15) or date-time with Z or an offset (2026-01-15T09:30:00Z)`,
    );
  }
  return parsed.kind === 'day' ? parsed.start : parsed.at;
}

function scopeText(t: Pick<TokenSummary, 'organizations' | 'teams'>): string {
  const parts = [
    ...(t.organizations.length ? [`orgs ${t.organizations.join(',')}`] : []),
    ...(t.teams.length ? [`teams ${t.teams.join(',')}`] : []),
  ];
  return parts.length ? parts.join('; ') : 'all';
}

/** Commands whose standard output is only JSON, to be parsed or saved: no database line before it. */
function printsOnlyJson(cmd: Exclude<Command, { kind: 'help' }>): boolean {
  return cmd.kind === 'managed-settings' || ('json' in cmd && cmd.json);
}

interface Output {
  out: (s: string) => void;
  warn: (s: string) => void;
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, { out, warn }: Output): Promise<void> {
  switch (cmd.kind) {
    case 'create': {
      const now = new Date();
      const created = await createToken(
        { user: cmd.user, name: cmd.name, expiresAt: expiryOf(cmd, now), organizationIds: cmd.orgs, teamIds: cmd.teams },
        now,
      );
      if (cmd.json) {
        out(`${JSON.stringify({ id: created.id, token: created.token, expires_at: created.expires_at })}\n`);
        return;
      }
      out(
        `Created API token ${created.id} for ${cmd.user}\n` +
          `  expires: ${created.expires_at ?? 'never'}\n` +
          `  scope:   ${scopeText({ organizations: cmd.orgs, teams: cmd.teams })}\n\n` +
          `  ${created.token}\n\n` +
          'Copy it now: it is shown only this once and cannot be recovered (only its SHA-256 hash is stored).\n',
      );
      return;
    }
    case 'create-scim': {
      const created = await createScimToken({ organizationId: cmd.org, name: cmd.name });
      if (cmd.json) {
        out(`${JSON.stringify({ id: created.id, token: created.token })}\n`);
        return;
      }
      out(
        `Created SCIM token ${created.id} for organization ${cmd.org}\n` +
          '  use:     your identity provider\'s SCIM connection (base URL: <this service>/scim/v2)\n\n' +
          `  ${created.token}\n\n` +
          'Copy it now: it is shown only this once and cannot be recovered (only its SHA-256 hash is stored).\n',
      );
      return;
    }
    case 'create-otlp': {
      const created = await createOtlpToken({ organizationId: cmd.org, user: cmd.user, name: cmd.name });
      if (cmd.json) {
        out(`${JSON.stringify({ id: created.id, token: created.token })}\n`);
        return;
      }
      out(
        `Created OTLP token ${created.id} for organization ${cmd.org}\n` +
          `  user:    ${created.user_id ?? "none (each record's user.email says whose it is)"}\n` +
          '  use:     OTEL_EXPORTER_OTLP_ENDPOINT=<this service>/otlp and OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <the token>";\n' +
          `           for Claude Code: npm run -s tokens -- managed-settings --org ${cmd.org} --token <the token>\n\n` +
          `  ${created.token}\n\n` +
          'Copy it now: it is shown only this once and cannot be recovered (only its SHA-256 hash is stored).\n',
      );
      return;
    }
    case 'managed-settings': {
      const check = await checkOtlpToken(cmd.token, cmd.org);
      if (!check.ok) throw new UsageError(check.refusal);
      if (check.userId) {
        warn(`tokens: warning: OTLP token ${check.id} is bound to ${check.userId}: everything sent with these settings is theirs; deploy a token made without --user to every laptop\n`);
      }
      out(`${JSON.stringify(managedSettings(publicBase(config), cmd.token), null, 2)}\n`);
      return;
    }
    case 'login-link': {
      if (config.OIDC_ISSUER) throw new TokenInputError('This service signs in through OIDC_ISSUER; one-time links are for the embedded default without an identity provider');
      const user = await findUser(cmd.user);
      const candidate = await findSignInUser(user.email);
      if (!candidate.ok) throw new TokenInputError(candidate.refusal);
      const link = await createLoginLink(user.id);
      // The token rides in the fragment, which browsers never send: it stays out of every access log.
      out(
        `Sign-in link for ${user.email}, valid once until ${link.expiresAt.toISOString()}:\n\n` +
          `  ${publicBase(config)}/auth/link#${link.token}\n\n` +
          'Open it in a browser; it signs in to the settings page once and cannot be used again.\n',
      );
      return;
    }
    case 'list': {
      const tokens = await listTokens(cmd.user);
      if (cmd.json) {
        out(`${JSON.stringify(tokens)}\n`);
        return;
      }
      if (tokens.length === 0) {
        out('No tokens.\n');
        return;
      }
      const header = ['ID', 'KIND', 'USER', 'NAME', 'PREVIEW', 'STATUS', 'EXPIRES', 'LAST USED', 'CREATED', 'SCOPE'];
      const rows = tokens.map((t) => [
        t.id,
        t.kind,
        t.user_id ?? '-',
        t.name,
        t.preview,
        t.status,
        t.expires_at ?? 'never',
        t.last_used_at ?? 'never',
        t.created_at,
        scopeText(t),
      ]);
      out(`${table([header, ...rows])}\n`);
      return;
    }
    case 'revoke': {
      const alreadyRevoked = await isRevoked(cmd.id);
      await revokeToken(cmd.id);
      out(
        alreadyRevoked
          ? `Token ${cmd.id} was already revoked.\n`
          : `Revoked token ${cmd.id}; it stops working within 5 seconds on every instance.\n`,
      );
      return;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const cmd = commandOrExit('tokens', USAGE, parseCommand, argv);
  if (typeof cmd === 'number') return cmd;

  const config = loadConfig();
  const database = await openServerDatabase('tokens', config, printsOnlyJson(cmd));
  if (!database) return 1;
  try {
    if ((await User.count()) === 0) {
      process.stderr.write(`tokens: warning: ${describeDatabase({ url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH })} has no users; is it the database the server uses?\n`);
    }
    await run(cmd, config, { out: (s) => process.stdout.write(s), warn: (s) => process.stderr.write(s) });
    return 0;
  } catch (e) {
    if (e instanceof TokenInputError) {
      process.stderr.write(`tokens: ${e.message}\n`);
      return 1;
    }
    // A refusal only the database can tell (managed-settings' --token) is still a usage error.
    if (e instanceof UsageError) {
      process.stderr.write(`tokens: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw e;
  } finally {
    await database.close();
  }
}

if (require.main === module) runCli('tokens', main);
