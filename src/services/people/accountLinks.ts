import { Op, Transaction } from 'sequelize';
import { App, GitApp, OrganizationMembership, User, UserEmail } from '../../../db/models';
import { conflict, notFound } from '../../errors';
import { OPERATOR } from '../../persistence/changes/auditRecord';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { ChangeAuthority, isWithinAuthority } from '../audit/actor';
import type { AccountFile, RejectedLine } from './accountCsv';
import type { LinkTable } from './linkTables';
import { chunks, membersByEmail } from './memberEmails';
import { normalizeEmail } from './members';

/** A member's account on a connection, as linked. */
export interface AccountLink {
  connection_id: string;
  user_id: string;
  account: string;
  created_at: Date;
}

/** A line of an accounts file that names its member's account: linked now (or, on a dry run, would be), or linked before. */
export interface LinkedLine {
  line: number;
  account: string;
  user_id: string;
  email: string;
}

/** What `link-users` did with each line of its file, by line number. */
export interface LinkReport {
  linked: LinkedLine[];
  already_linked: LinkedLine[];
  rejected: RejectedLine[];
  dry_run: boolean;
}

/** The connection links are made on: an app or a git app, and its organization. */
export interface Connection {
  id: string;
  organization_id: string;
}

/**
 * Members' accounts on apps and git apps, linked by hand (docs/trackers.md#accounts): one member by `link-user`,
 * a file of them by `link-users`. A link is what a match by e-mail would have made: the account then finds its member
 * in what arrives next, as a link the writers learnt does. Each link is audit-logged in the change that makes it.
 */
export class AccountLinkWriter {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Links a member (by id or e-mail) to an account; the member's earlier account on the connection is replaced. */
  linkUser(links: LinkTable, connectionId: string, user: string, account: string, by: ChangeAuthority = {}): Promise<AccountLink> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const connection = await connectionOf(links, connectionId, by, transaction);
      const member = await OrganizationMembership.findOne({
        where: { organization_id: connection.organization_id, ...(user.includes('@') ? { user_email: normalizeEmail(user) } : { user_id: user }) },
        attributes: ['user_id'],
        transaction,
      });
      if (!member) throw notFound(`No member ${user} in organization ${connection.organization_id}`);
      const sql = new ChangeSql(transaction);
      const [taken] = await linksOf(sql, links, connection.id, 'account', [account]);
      if (taken && taken.user_id !== member.user_id) throw conflict(`${capitalised(links.accountNoun)} ${account} of ${links.connectionNoun} ${connection.id} is already linked to ${taken.user_id}`);
      const [own] = await linksOf(sql, links, connection.id, 'user', [member.user_id], true);
      const createdAt = own ? new Date(own.created_at) : this.now();
      const key = { connectionId: connection.id, userId: member.user_id, account };
      if (own) await sql.run(`UPDATE ${links.table} SET ${links.accountColumn} = :account WHERE ${links.connectionColumn} = :connectionId AND user_id = :userId`, key);
      else await sql.insert(links.table, ['user_id', links.connectionColumn, links.accountColumn, 'created_at'], [{ user_id: member.user_id, [links.connectionColumn]: connection.id, [links.accountColumn]: account, created_at: createdAt }]);
      change.wrote(links.table);
      audit(change, links, connection, member.user_id, account, by);
      return { connection_id: connection.id, user_id: member.user_id, account, created_at: createdAt };
    });
  }

  /**
   * Links the good lines of an accounts file in one change, in a bounded number of statements (a few per 500 lines):
   * each account to the member of the connection's organization with that e-mail. A line is refused, with its reason,
   * when its e-mail is no member's (another organization's member's included: links never cross organizations), its
   * account or member came on an earlier line, its account is another member's, or its member has another account
   * there already (`link-user` replaces one). A dry run reads all the same and writes nothing.
   */
  linkFile(links: LinkTable, connectionId: string, file: AccountFile, options: { dryRun: boolean }, by: ChangeAuthority = {}): Promise<LinkReport> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const connection = await connectionOf(links, connectionId, by, transaction);
      const report: LinkReport = { linked: [], already_linked: [], rejected: [...file.rejected], dry_run: options.dryRun };
      const lines = firstOfEach(file, report.rejected);
      const members = await membersByEmail(connection.organization_id, lines.map((l) => l.email), transaction);
      const outsiders = await usersByEmail(lines.flatMap((l) => (members.has(l.email) ? [] : [l.email])), transaction);
      const sql = new ChangeSql(transaction);
      const byAccount = new Map((await linksOf(sql, links, connection.id, 'account', lines.map((l) => l.account))).map((r) => [r.account, r.user_id]));
      const byMember = new Map((await linksOf(sql, links, connection.id, 'user', [...new Set(members.values())])).map((r) => [r.user_id, r.account]));
      for (const l of lines) {
        const userId = members.get(l.email);
        const linkedTo = byAccount.get(l.account);
        const memberAccount = userId && byMember.get(userId);
        const reason = !userId
          ? outsiders.has(l.email)
            ? `${l.email} is not a member of organization ${connection.organization_id}`
            : `unknown e-mail: no member of organization ${connection.organization_id} has ${l.email}`
          : linkedTo !== undefined && linkedTo !== userId
            ? `${links.accountNoun} ${l.account} is already linked to another member (${linkedTo})`
            : linkedTo === undefined && memberAccount
              ? `${l.email} is already linked to ${links.accountNoun} ${memberAccount} on this ${links.connectionNoun} (link-user replaces it)`
              : undefined;
        if (reason) report.rejected.push({ line: l.line, reason });
        else (linkedTo === userId ? report.already_linked : report.linked).push({ line: l.line, account: l.account, user_id: userId!, email: l.email });
      }
      report.rejected.sort((a, b) => a.line - b.line);
      if (!options.dryRun && report.linked.length) {
        const createdAt = this.now();
        const rows = report.linked.map((l) => ({ user_id: l.user_id, [links.connectionColumn]: connection.id, [links.accountColumn]: l.account, created_at: createdAt }));
        for (const batch of chunks(rows)) await sql.insert(links.table, ['user_id', links.connectionColumn, links.accountColumn, 'created_at'], batch);
        change.wrote(links.table);
        for (const l of report.linked) audit(change, links, connection, l.user_id, l.account, by);
      }
      return report;
    });
  }
}

/** The app or git app; in a change, locked so that concurrent links of it are made one after the other. */
export async function connectionOf(links: LinkTable, connectionId: string, by: ChangeAuthority, transaction?: Transaction): Promise<Connection> {
  const options = { attributes: ['id', 'organization_id'], transaction, lock: transaction?.LOCK.UPDATE };
  const connection = links.table === 'user_apps' ? await App.findByPk(connectionId, options) : await GitApp.findByPk(connectionId, options);
  if (!connection || !isWithinAuthority(by, connection.organization_id)) throw notFound(`No ${links.connectionNoun} ${connectionId} (see ${links.listCommand})`);
  return connection;
}

/** The lines left once those whose account or e-mail an earlier line gave are refused, each saying which. */
function firstOfEach(file: AccountFile, rejected: RejectedLine[]): AccountFile['lines'] {
  const accounts = new Map<string, number>();
  const emails = new Map<string, number>();
  return file.lines.filter((l) => {
    const account = accounts.get(l.account);
    const email = emails.get(l.email);
    if (account !== undefined) rejected.push({ line: l.line, reason: `duplicate account: ${l.account} is on line ${account} already` });
    else if (email !== undefined) rejected.push({ line: l.line, reason: `duplicate e-mail: ${l.email} is on line ${email} already (a member has one account per connection)` });
    else {
      accounts.set(l.account, l.line);
      emails.set(l.email, l.line);
      return true;
    }
    return false;
  });
}

/** Of these addresses, those some user holds, in whichever organization: to say "not a member" rather than "unknown". */
async function usersByEmail(emails: string[], transaction: Transaction): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks([...new Set(emails)])) {
    for (const u of await User.findAll({ where: { email: { [Op.in]: chunk } }, attributes: ['email'], transaction })) found.add(u.email);
    for (const e of await UserEmail.findAll({ where: { email: { [Op.in]: chunk } }, attributes: ['email'], transaction })) found.add(e.email);
  }
  return found;
}

/** The connection's links of these accounts, or of these members, a chunk at a time. */
async function linksOf(sql: ChangeSql, links: LinkTable, connectionId: string, by: 'account' | 'user', keys: string[], lock = false) {
  const rows: { user_id: string; account: string; created_at: Date | string }[] = [];
  const column = by === 'account' ? links.accountColumn : 'user_id';
  for (const chunk of chunks([...new Set(keys)])) {
    rows.push(
      ...(await sql.select<{ user_id: string; account: string; created_at: Date | string }>(
        `SELECT user_id, ${links.accountColumn} AS account, created_at FROM ${links.table} WHERE ${links.connectionColumn} = :connectionId AND ${column} IN (:chunk)${lock ? sql.forUpdate : ''}`,
        { connectionId, chunk },
      )),
    );
  }
  return rows;
}

function audit(change: Change, links: LinkTable, connection: Connection, userId: string, account: string, by: ChangeAuthority): void {
  change.audit({
    organizationId: connection.organization_id,
    actor: by.actor ?? OPERATOR,
    action: links.audit.action,
    target: { type: links.audit.target, id: connection.id },
    details: { user_id: userId, [links.accountColumn]: account },
  });
}

const capitalised = (noun: string) => noun[0].toUpperCase() + noun.slice(1);
