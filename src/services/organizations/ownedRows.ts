import type { Change } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * Everything an organization owns, removed in the deleting change (docs/organizations.md#deleting-one). Most tables
 * say whose a row is in their `organization_id` column, and are found by it in the schema itself: a table added
 * later is covered without being named here. The rest hang off a row that has one (an app's deliveries and linked
 * accounts, a team's memberships, a webhook endpoint's attempts, a repository's or team's rollups) or are a
 * person's: the users who belong to no other organization go with it, with their addresses, sessions and tokens.
 */
const BY_PARENT: { table: string; column: string; parent: string }[] = [
  { table: 'webhook_attempts', column: 'endpoint_id', parent: 'SELECT id FROM webhook_endpoints WHERE organization_id = :org' },
  { table: 'ingest_deliveries', column: 'app_id', parent: 'SELECT id FROM apps WHERE organization_id = :org' },
  { table: 'ingest_deliveries', column: 'app_id', parent: 'SELECT id FROM git_apps WHERE organization_id = :org' },
  { table: 'user_apps', column: 'app_id', parent: 'SELECT id FROM apps WHERE organization_id = :org' },
  { table: 'app_status_overrides', column: 'app_id', parent: 'SELECT id FROM apps WHERE organization_id = :org' },
  { table: 'removed_tasks', column: 'app_id', parent: 'SELECT id FROM apps WHERE organization_id = :org' },
  { table: 'user_git_apps', column: 'git_app_id', parent: 'SELECT id FROM git_apps WHERE organization_id = :org' },
  { table: 'team_memberships', column: 'team_id', parent: 'SELECT id FROM teams WHERE organization_id = :org' },
  { table: 'api_token_teams', column: 'team_id', parent: 'SELECT id FROM teams WHERE organization_id = :org' },
];

/** Rollups kept per organization, team and repository under one key (src/services/metrics/reading/scope.ts). */
const BY_SCOPE = ['commit_days', 'lead_time_days', 'pull_request_days', 'pull_request_months', 'interaction_days'];
const SCOPES = '(SELECT :org UNION ALL SELECT id FROM teams WHERE organization_id = :org UNION ALL SELECT id FROM repositories WHERE organization_id = :org)';

/** A person's rows, by user id: for the users the organization had to itself. */
const PERSONAL = ['user_emails', 'auth_sessions', 'login_links', 'api_tokens'];

/** Ids per statement: well under SQLite's 32,766 variables and MariaDB's packet. */
const CHUNK = 500;

/** What the deletion removed, by kind: the operator's receipt and the audit entry's details. */
export interface RemovedRows {
  members: number;
  usersRemoved: number;
  tables: number;
}

/** Removes every row the organization owns, the organization last; the users staying elsewhere have their access changed. */
export async function removeOwnedRows(change: Change, organizationId: string): Promise<RemovedRows> {
  const sql = new ChangeSql(change.transaction);
  const org = { org: organizationId };
  const members = await sql.select<{ user_id: string; elsewhere: number }>(
    `SELECT m.user_id, (SELECT COUNT(*) FROM organization_memberships o WHERE o.user_id = m.user_id AND o.organization_id <> :org) AS elsewhere
       FROM organization_memberships m WHERE m.organization_id = :org`,
    org,
  );
  const leaving = members.filter((m) => Number(m.elsewhere) === 0).map((m) => m.user_id);
  const staying = members.filter((m) => Number(m.elsewhere) > 0).map((m) => m.user_id);
  const tokens = await tokensLeftWithoutScope(sql, organizationId, leaving);

  for (const { table, column, parent } of BY_PARENT) await sql.run(`DELETE FROM ${table} WHERE ${column} IN (${parent})`, org);
  for (const table of BY_SCOPE) await sql.run(`DELETE FROM ${table} WHERE scope_id IN ${SCOPES}`, org);
  for (const ids of chunks(tokens)) {
    await sql.run('DELETE FROM api_token_organizations WHERE token_id IN (:ids)', { ids });
    await sql.run('DELETE FROM api_token_teams WHERE token_id IN (:ids)', { ids });
    await sql.run('DELETE FROM api_tokens WHERE id IN (:ids)', { ids });
  }
  for (const ids of chunks(leaving)) {
    for (const table of PERSONAL) await sql.run(`DELETE FROM ${table} WHERE user_id IN (:ids)`, { ids });
  }
  const owning = (await tablesWithOrganizationColumn(sql)).filter((t) => t !== 'organizations');
  for (const table of owning) await sql.run(`DELETE FROM \`${table}\` WHERE organization_id = :org`, org);
  for (const ids of chunks(leaving)) await sql.run('DELETE FROM users WHERE id IN (:ids)', { ids });
  await sql.run('DELETE FROM organizations WHERE id = :org', org);

  change.wrote(...new Set([...BY_PARENT.map((t) => t.table), ...BY_SCOPE, ...PERSONAL, ...owning, 'api_token_organizations', 'users', 'organizations']));
  // Those staying elsewhere keep their tokens: every instance forgets the cached access that named this organization.
  for (const userId of staying) change.accessChanged(userId);
  return { members: members.length, usersRemoved: leaving.length, tables: owning.length + BY_PARENT.length + BY_SCOPE.length + PERSONAL.length };
}

/**
 * API tokens that would be left with no organization or team to act in, and so would widen to every organization
 * of their owner: those restricted to this organization (or its teams) alone, and every token of a departing user.
 */
async function tokensLeftWithoutScope(sql: ChangeSql, organizationId: string, leaving: string[]): Promise<string[]> {
  const restricted = await sql.select<{ id: string }>(
    `SELECT token_id AS id FROM api_token_organizations a WHERE a.organization_id = :org
        AND NOT EXISTS (SELECT 1 FROM api_token_organizations b WHERE b.token_id = a.token_id AND b.organization_id <> :org)
     UNION
     SELECT token_id AS id FROM api_token_teams a WHERE a.team_id IN (SELECT id FROM teams WHERE organization_id = :org)
        AND NOT EXISTS (SELECT 1 FROM api_token_teams b JOIN teams t ON t.id = b.team_id WHERE b.token_id = a.token_id AND t.organization_id <> :org)`,
    { org: organizationId },
  );
  const owned: string[] = [];
  for (const ids of chunks(leaving)) owned.push(...(await sql.select<{ id: string }>('SELECT id FROM api_tokens WHERE user_id IN (:ids)', { ids })).map((r) => r.id));
  return [...new Set([...restricted.map((r) => r.id), ...owned])];
}

/** The tables with an `organization_id` column, from the database's own catalogue (names it gave, never a client's). */
async function tablesWithOrganizationColumn(sql: ChangeSql): Promise<string[]> {
  const rows = sql.mysql
    ? await sql.select<{ name: string }>(
        "SELECT TABLE_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = 'organization_id' ORDER BY TABLE_NAME",
        {},
      )
    : await sql.select<{ name: string }>(
        "SELECT m.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'organization_id' ORDER BY m.name",
        {},
      );
  return rows.map((r) => r.name);
}

function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(ids.slice(i, i + CHUNK));
  return out;
}
