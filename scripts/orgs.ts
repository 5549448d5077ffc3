/**
 * npm run orgs -- create --name <name> --admin <email> [--admin-name <name>] [--json]
 * npm run orgs -- list [--json]
 * npm run orgs -- rename --org <id> --name <name> [--json]
 * npm run orgs -- delete --org <id> --confirm <id> [--json]
 * npm run orgs -- add-members --org <id> --csv <file> [--dry-run] [--json]
 *
 * A company's own organization (docs/organizations.md): made with its first admin, who signs in with the one-time
 * link printed (or through the identity provider, when one is configured); its people added from a file when no
 * identity provider provisions them. Exit codes: 0 done, 1 refused (unknown organization, a name in use, an
 * unconfirmed deletion, a line of a members file) or failure, 2 usage error.
 */
import { z } from 'zod';
import { Organization } from '../db/models';
import { Config, publicBase } from '../src/config';
import { createLoginLink } from '../src/auth/signIn';
import { ChangeRunner } from '../src/persistence/changes/change';
import { listOrganizations, ORGANIZATION_NAME_MAX, OrganizationSummary, OrganizationWriter } from '../src/services/organizations/organizations';
import { MemberWriter } from '../src/services/people/members';
import { AddReport, MemberAdministration } from '../src/services/people/memberAdministration';
import { readMemberFile } from '../src/services/people/memberCsv';
import { fileText } from './accountLinks';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';

const USAGE = `Usage:
  npm run orgs -- create --name <name> --admin <email> [--admin-name <name>] [--json]
  npm run orgs -- list [--json]
  npm run orgs -- rename --org <id> --name <name> [--json]
  npm run orgs -- delete --org <id> --confirm <id> [--json]
  npm run orgs -- add-members --org <id> --csv <file> [--dry-run] [--json]

create  makes an organization and its first admin (a new user, or one who already belongs to another
        organization), and prints a sign-in link to the settings page, valid once for ten minutes; with
        OIDC_ISSUER set it prints none: the admin signs in through the identity provider with that e-mail.
          --admin-name  the admin's name as lists show it (default: the e-mail's local part; the identity
                        provider's SCIM sync replaces it)
          --json        print {"id","name","admin":{"id","email"},"sign_in_link"} on one line
list    shows every organization with its active members and admins.
rename  gives an organization another name (names are unique, whatever their case).
delete  deletes an organization and everything it owns, in one change: its members' memberships, teams,
        git apps, apps, repositories and their history, metrics, dashboards, tokens, webhooks and audit
        log; the people who belong to no other organization go with it. --confirm repeats its id.
        The deletion itself stays in the audit log. It cannot be undone.
add-members  adds an organization's people from a CSV file with the header line email,name,role (role:
        admin, manager or collaborator; left empty or out, collaborator), for an organization no identity
        provider provisions (refused while it has an active SCIM token). The good lines are added in one
        change, each audited; each refused line is reported by its number (a malformed e-mail, an unknown
        role, an e-mail on an earlier line or of a member already), and the exit code is then 1.
          --dry-run  reads and checks the file and changes nothing
          --json     print {"organization_id","added":[…],"rejected":[{"line","reason"}],"dry_run"}

Target database: DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'create'; name: string; admin: string; adminName?: string; json: boolean }
  | { kind: 'list'; json: boolean }
  | { kind: 'rename'; org: string; name: string; json: boolean }
  | { kind: 'delete'; org: string; confirm: string; json: boolean }
  | { kind: 'add-members'; org: string; csv: string; dryRun: boolean; json: boolean };

const COMMANDS = 'create, list, rename, delete or add-members';

function required(command: string, flag: string, what: string, value: string | undefined): string {
  const given = nonEmpty(`--${flag}`, value)?.trim();
  if (given === undefined) throw new UsageError(`${command} needs --${flag} <${what}>`);
  return given;
}

function nameFlag(command: string, value: string | undefined): string {
  const name = required(command, 'name', 'name', value);
  if (name.length > ORGANIZATION_NAME_MAX) throw new UsageError(`--name has at most ${ORGANIZATION_NAME_MAX} characters`);
  return name;
}

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`a command is required: ${COMMANDS}`);
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'create': {
      const { values } = parse(rest, { name: { type: 'string' }, admin: { type: 'string' }, 'admin-name': { type: 'string' }, json: { type: 'boolean' } });
      const name = nameFlag('create', values.name);
      const admin = required('create', 'admin', "the first admin's e-mail", values.admin);
      if (!z.email().safeParse(admin).success) throw new UsageError(`--admin needs an e-mail address (got '${admin}')`);
      const adminName = nonEmpty('--admin-name', values['admin-name'])?.trim();
      if (adminName && adminName.length > 200) throw new UsageError('--admin-name has at most 200 characters');
      return { kind: 'create', name, admin, ...(adminName ? { adminName } : {}), json: values.json ?? false };
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      return { kind: 'list', json: values.json ?? false };
    }
    case 'rename': {
      const { values } = parse(rest, { org: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
      return { kind: 'rename', org: required('rename', 'org', 'organization id', values.org), name: nameFlag('rename', values.name), json: values.json ?? false };
    }
    case 'delete': {
      const { values } = parse(rest, { org: { type: 'string' }, confirm: { type: 'string' }, json: { type: 'boolean' } });
      const org = required('delete', 'org', 'organization id', values.org);
      const confirm = required('delete', 'confirm', 'the same organization id again', values.confirm);
      return { kind: 'delete', org, confirm, json: values.json ?? false };
    }
    case 'add-members': {
      const { values } = parse(rest, { org: { type: 'string' }, csv: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
      const org = required('add-members', 'org', 'organization id', values.org);
      const csv = required('add-members', 'csv', 'file with the header line email,name,role', values.csv);
      return { kind: 'add-members', org, csv, dryRun: values['dry-run'] ?? false, json: values.json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use ${COMMANDS}`);
  }
}

function summaryLines(organizations: OrganizationSummary[]): string {
  if (organizations.length === 0) return 'No organizations. Make one: npm run orgs -- create --name "<name>" --admin <you@company.com>\n';
  // A few admins say who to ask; --json lists them all.
  const adminsOf = (admins: string[]) => (admins.length > 3 ? `${admins.slice(0, 3).join(', ')} and ${admins.length - 3} more` : admins.join(', ') || '(none)');
  const rows = organizations.map((o) => [o.id, o.name, String(o.members), adminsOf(o.admins), o.created_at]);
  return `${table([['ID', 'NAME', 'MEMBERS', 'ADMINS', 'CREATED'], ...rows])}\n`;
}

function addReportText(report: AddReport): string {
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const added = report.added.map((l) => `  line ${l.line}: ${l.email} (${l.role})${l.user_id ? ` → ${l.user_id}` : ''}\n`).join('');
  const head = report.dry_run
    ? `Dry run, nothing changed: would add ${plural(report.added.length, 'member')} to organization ${report.organization_id}${report.added.length ? ':' : '.'}\n${added}`
    : `Added ${plural(report.added.length, 'member')} to organization ${report.organization_id}.\n`;
  if (report.rejected.length === 0) return head;
  return `${head}${plural(report.rejected.length, 'line')} refused:\n${report.rejected.map((r) => `  line ${r.line}: ${r.reason}\n`).join('')}`;
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, out: (s: string) => void): Promise<void | number> {
  const changes = ChangeRunner.for(Organization.sequelize!);
  const writer = new OrganizationWriter(changes);
  switch (cmd.kind) {
    case 'create': {
      const created = await writer.create({ name: cmd.name, adminEmail: cmd.admin, adminName: cmd.adminName });
      // Through the identity provider when there is one: a link would bypass it.
      const link = config.OIDC_ISSUER ? undefined : await createLoginLink(created.admin.id);
      const signInLink = link ? `${publicBase(config)}/auth/link#${link.token}` : null;
      if (cmd.json) {
        out(`${JSON.stringify({ ...created, sign_in_link: signInLink })}\n`);
        return;
      }
      out(
        `Created organization ${created.id} (${created.name}) with its admin ${created.admin.email} (${created.admin.id}).\n\n` +
          (link
            ? `Sign-in link for ${created.admin.email}, valid once until ${link.expiresAt.toISOString()}:\n\n  ${signInLink}\n\n` +
              'Open it in a browser: it signs in to the settings page. Another one later: npm run tokens -- login-link --user ' +
              `${created.admin.email}\n`
            : `Sign in at ${publicBase(config)}/settings/ through your identity provider (OIDC_ISSUER) as ${created.admin.email}.\n`) +
          '\nNext: docs/getting-started.md (connect the identity provider or make teams, then GitHub, the tracker, ...).\n',
      );
      return;
    }
    case 'list': {
      const organizations = await listOrganizations();
      out(cmd.json ? `${JSON.stringify(organizations)}\n` : summaryLines(organizations));
      return;
    }
    case 'rename': {
      const renamed = await writer.rename(cmd.org, cmd.name);
      out(cmd.json ? `${JSON.stringify(renamed)}\n` : `Organization ${renamed.id} is now named ${renamed.name}.\n`);
      return;
    }
    case 'delete': {
      const deleted = await writer.delete(cmd.org, cmd.confirm);
      if (cmd.json) {
        out(`${JSON.stringify({ id: deleted.id, name: deleted.name, members: deleted.removed.members, users_removed: deleted.removed.usersRemoved })}\n`);
        return;
      }
      out(
        `Deleted organization ${deleted.id} (${deleted.name}) and everything it owned: ${deleted.removed.members} memberships, ` +
          `${deleted.removed.usersRemoved} people who belonged to no other organization.\n`,
      );
      return;
    }
    case 'add-members': {
      const administration = new MemberAdministration(changes, new MemberWriter(changes));
      const report = await administration.addFile(cmd.org, readMemberFile(fileText(cmd.csv)), { dryRun: cmd.dryRun });
      out(cmd.json ? `${JSON.stringify(report)}\n` : addReportText(report));
      return report.rejected.length ? 1 : 0;
    }
  }
}

export const main = (argv: string[]): Promise<number> => runWriterCommand('orgs', USAGE, parseCommand, argv, run);

if (require.main === module) runCli('orgs', main);
