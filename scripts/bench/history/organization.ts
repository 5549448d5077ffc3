/**
 * The organization a history row imports into: made for one run (the floor's, then the importer's) and deleted after
 * it with every row it holds, so each run starts from nothing and the benchmark's data is left as it was. Its members are some of the large organization's people (memberships copied, no one
 * made); the git app or app is made with the service's writers and its credential set as `set-credential` sets it.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { Sequelize } from 'sequelize';
import { createSequelize } from '../../../db/connection';
import { initModels } from '../../../db/models';
import { providerCatalog } from '../../../src/integrations/catalog';
import { ChangeRunner } from '../../../src/persistence/changes/change';
import { newId } from '../../../src/persistence/changes/ids';
import { SecretBox } from '../../../src/secrets/secretBox';
import { AppWriter } from '../../../src/services/apps/apps';
import { ConnectionCredentials } from '../../../src/services/apps/credentials';
import { GitAppWriter } from '../../../src/services/git/apps/gitApps';
import type { BenchMember } from './world';

export interface MemberRow {
  userId: string;
  email: string;
}

/** `count` active members of the organization `from`, in a stable order. */
export async function pickMembers(db: Connection, from: string, count: number): Promise<MemberRow[]> {
  const [rows] = await db.query<RowDataPacket[]>("SELECT user_id, user_email FROM organization_memberships WHERE organization_id = ? AND status = 'active' ORDER BY user_id LIMIT ?", [from, count]);
  if (rows.length < count) throw new Error(`organization ${from} has ${rows.length} active members; a history row needs ${count}`);
  return rows.map((r) => ({ userId: r.user_id as string, email: r.user_email as string }));
}

/** How the fakes name member `i`: a login at the git providers, an account id, the member's own e-mail. */
export const benchMember = (m: MemberRow, i: number): BenchMember => ({ login: `bench-dev-${String(i).padStart(4, '0')}`, email: m.email, providerId: 7_000_000 + i });

export interface BenchConnection {
  organizationId: string;
  type: 'git_app' | 'app';
  id: string;
}

/** The service's writers on the benchmark's database, for the few changes a row makes itself. */
export class BenchWriters {
  private constructor(private readonly sequelize: Sequelize, private readonly secretsKey: Buffer) {}

  static open(url: string, secretsKey: Buffer): BenchWriters {
    const sequelize = createSequelize({ url, sqlitePath: '' });
    initModels(sequelize);
    return new BenchWriters(sequelize, secretsKey);
  }

  /** A new organization of `members` (collaborators, their memberships copied from `from`), with the connection to read and its credential. */
  async connect(db: Connection, from: string, provider: { id: string; connection: 'git_app' | 'app' }, members: MemberRow[], logins: BenchMember[], token: string): Promise<BenchConnection> {
    const organizationId = newId('org');
    await db.query('INSERT INTO organizations SET ?', [{ id: organizationId, name: `npm run bench (history ${provider.id} ${organizationId})`, created_at: new Date() }]);
    await db.query(
      `INSERT INTO organization_memberships (organization_id, user_id, role, created_at, user_name, user_email, user_created_at, status)
        SELECT ?, user_id, 'collaborator', created_at, user_name, user_email, user_created_at, 'active' FROM organization_memberships WHERE organization_id = ? AND user_id IN (?)`,
      [organizationId, from, members.map((m) => m.userId)],
    );
    const changes = ChangeRunner.for(this.sequelize);
    const secrets = new SecretBox(this.secretsKey);
    const catalog = providerCatalog();
    let id: string;
    if (provider.connection === 'git_app') {
      ({ gitApp: { id } } = await new GitAppWriter(changes, secrets, catalog).create(organizationId, provider.id, `${provider.id} (bench)`));
      // The members' logins at the provider, as `gitapps link-user` links them.
      await db.query('INSERT INTO user_git_apps (user_id, git_app_id, username, created_at) VALUES ?', [members.map((m, i) => [m.userId, id, logins[i].login, new Date()])]);
    } else {
      ({ app: { id } } = await new AppWriter(changes, secrets, catalog).create(organizationId, provider.id, { name: `${provider.id} (bench)` }));
    }
    await new ConnectionCredentials(changes, secrets, catalog).setCredential({ type: provider.connection, id }, { kind: 'token', token });
    return { organizationId, type: provider.connection, id };
  }

  /**
   * The organization and all it holds, the rows `npm run orgs -- delete` removes (src/services/organizations/ownedRows.ts:
   * every table with an `organization_id`, the rows hanging off its connections, its rollups by scope); its members
   * stay in the large one. Not through that deletion itself: it finds the rollups of the organization's scopes by a
   * subquery MariaDB runs once per row of each rollup table, about 16 s an organization on the large data.
   */
  async remove(db: Connection, organizationId: string): Promise<void> {
    const ids = async (sql: string) => ((await db.query<RowDataPacket[]>(sql, [organizationId]))[0]).map((r) => r.id as string);
    const scopes = [organizationId, ...(await ids('SELECT id FROM repositories WHERE organization_id = ?'))];
    const gitApps = await ids('SELECT id FROM git_apps WHERE organization_id = ?');
    const apps = await ids('SELECT id FROM apps WHERE organization_id = ?');
    for (const table of ['commit_days', 'lead_time_days', 'pull_request_days', 'pull_request_months', 'interaction_days']) await db.query(`DELETE FROM ${table} WHERE scope_id IN (?)`, [scopes]);
    for (const [table, column, of] of [['user_git_apps', 'git_app_id', gitApps], ['ingest_deliveries', 'app_id', [...gitApps, ...apps]], ['user_apps', 'app_id', apps], ['removed_tasks', 'app_id', apps], ['app_status_overrides', 'app_id', apps]] as const) {
      if (of.length) await db.query(`DELETE FROM ${table} WHERE ${column} IN (?)`, [of]);
    }
    const [owning] = await db.query<RowDataPacket[]>("SELECT TABLE_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = 'organization_id' AND TABLE_NAME <> 'organizations'");
    for (const { name } of owning) await db.query(`DELETE FROM \`${String(name)}\` WHERE organization_id = ?`, [organizationId]);
    await db.query('DELETE FROM organizations WHERE id = ?', [organizationId]);
  }

  close(): Promise<void> {
    return this.sequelize.close();
  }
}
