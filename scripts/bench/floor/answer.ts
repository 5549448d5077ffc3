/**
 * What the floor answers, whatever serves it over HTTP: one list page for the benchmark's caller by the best
 * plan known, in the API's envelope. `server.ts` serves it with bare node:http (the floor), `stack.ts` with the
 * API's fixed stack and nothing of the API's own (the stack floor).
 */
import { createPool, Pool, RowDataPacket } from 'mysql2/promise';
import { Caller, Ctx, LISTS, ListDef, MemberIndexes, Target } from './lists';
import type { Sql } from './sql';

// The API's Sequelize pool holds at most 20 connections; the floor gets no more, so it wins on plans, not width.
const POOL_SIZE = 20;

export interface PageRequest {
  page: number;
  perPage: number;
  sort: string;
  order: 'asc' | 'desc';
}

export interface Floor {
  /** The list templates (OpenAPI paths under /v1) with their definitions. */
  lists: typeof LISTS;
  page(list: ListDef, params: Record<string, string>, request: PageRequest): Promise<unknown>;
  describe(): string;
  end(): Promise<void>;
}

async function rows(pool: Pool, q: Sql): Promise<RowDataPacket[]> {
  const [result] = await pool.query<RowDataPacket[]>(q.sql, q.args);
  return result;
}

async function loadCaller(pool: Pool, userId: string): Promise<Caller> {
  const orgs = await rows(pool, { sql: 'SELECT organization_id, role FROM organization_memberships WHERE user_id = ?', args: [userId] });
  const teams = await rows(pool, { sql: 'SELECT team_id, role FROM team_memberships WHERE user_id = ?', args: [userId] });
  return {
    userId,
    orgIds: orgs.map((r) => r.organization_id as string),
    adminOrgIds: orgs.filter((r) => r.role === 'admin').map((r) => r.organization_id as string),
    teamIds: teams.map((r) => r.team_id as string),
    managedTeamIds: teams.filter((r) => r.role === 'manager').map((r) => r.team_id as string),
  };
}

/** The addressed user's memberships; the caller's own are known already and cost no query. */
async function loadTarget(pool: Pool, caller: Caller, userId: string | undefined): Promise<Target> {
  if (!userId || userId === caller.userId) return { userId: caller.userId, orgIds: caller.orgIds, teamIds: caller.teamIds };
  const [orgs, teams] = await Promise.all([
    rows(pool, { sql: 'SELECT organization_id FROM organization_memberships WHERE user_id = ?', args: [userId] }),
    rows(pool, { sql: 'SELECT team_id FROM team_memberships WHERE user_id = ?', args: [userId] }),
  ]);
  return { userId, orgIds: orgs.map((r) => r.organization_id as string), teamIds: teams.map((r) => r.team_id as string) };
}

/**
 * Rows come with `dateStrings` (stored UTC, `2024-01-02 09:00:00.000`) and TINYINT booleans; turning them into
 * the API's wire forms by name is cheaper than a Date round trip per value.
 */
function toItem(row: RowDataPacket): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.endsWith('_at') && typeof value === 'string') item[key] = `${value.replace(' ', 'T')}Z`;
    else if (key.startsWith('is_')) item[key] = value === 1;
    else item[key] = value;
  }
  return item;
}

/** Environment: DATABASE_URL, FLOOR_USER_ID (the caller, default usr_ada), FLOOR_COUNT=exact|cached. */
export async function openFloor(): Promise<Floor> {
  const uri = process.env.DATABASE_URL;
  if (!uri) throw new Error('DATABASE_URL is required');
  const cached = process.env.FLOOR_COUNT === 'cached';
  const pool = createPool({ uri, connectionLimit: POOL_SIZE, dateStrings: true, supportBigNumbers: true });
  const caller = await loadCaller(pool, process.env.FLOOR_USER_ID ?? 'usr_ada');
  // The best plan for member lists depends on the schema the database has (both are in use: see lists.ts).
  const indexNames = new Set(
    (await rows(pool, { sql: 'SHOW INDEX FROM organization_memberships', args: [] })).map((r) => r.Key_name as string),
  );
  const memberIndexes: MemberIndexes = indexNames.has('org_members_by_status_user_created_at')
    ? 'status'
    : indexNames.has('organization_memberships_organization_id_user_created_at_user_id')
      ? 'plain'
      : 'none';
  // `cached`: each scope is counted once for the whole run (the data is read-only meanwhile), i.e. the cost of
  // totals with a perfect cache. Otherwise every request counts, the cost of exact totals without one.
  const totals = new Map<string, Promise<number>>();
  const countOf = (q: Sql): Promise<number> => {
    const run = () => rows(pool, q).then((r) => Number(r[0].n));
    if (!cached) return run();
    const key = `${q.sql}|${JSON.stringify(q.args)}`;
    let total = totals.get(key);
    if (!total) totals.set(key, (total = run()));
    return total;
  };
  return {
    lists: LISTS,
    async page(list, params, { page, perPage, sort, order }) {
      const target = await loadTarget(pool, caller, params.user_id);
      const ctx: Ctx = { caller, params, target, memberIndexes };
      const pageQuery = { sort, dir: order === 'asc' ? 'ASC' : 'DESC', limit: perPage, offset: (page - 1) * perPage } as const;
      // Page and count in parallel on two pooled connections: the latency is the slower of the two.
      const [found, total] = await Promise.all([rows(pool, list.page(ctx, pageQuery)), countOf(list.count(ctx))]);
      return {
        status: 'success',
        data: found.map(toItem),
        meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage), sort, order },
      };
    },
    describe: () => `counts: ${cached ? 'cached' : 'exact'}, member lists: ${memberIndexes === 'none' ? 'users walk' : `membership indexes (${memberIndexes})`}`,
    end: () => pool.end(),
  };
}
