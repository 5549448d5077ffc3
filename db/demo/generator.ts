import { Sequelize } from 'sequelize';
import { Inserter, Row } from './inserter';
import { Random } from './random';
import { DEFAULT_DEMO_SEED, DEMO_SCALES, DemoScale, SCALES } from './scales';
import { Seeding } from './state';
import { seedTelemetry } from './telemetry';
import { DemoUsageRollups } from './usageRollups';
import { seedCopilot } from './steps/copilot';
import { END_MS, startOfDay } from './time';
import { seedApps } from './steps/apps';
import { seedCommits } from './steps/commits';
import { seedDashboardViews } from './steps/dashboardViews';
import { insertDeploymentsAndIncidents } from './steps/deployments';
import { seedGitApps, seedRepositories } from './steps/gitApps';
import { seedInteractions } from './steps/interactions';
import { seedOrganizations } from './steps/organizations';
import { seedPullRequests } from './steps/pullRequests';
import { rebuildRollups } from './steps/rollups';
import { seedTasks } from './steps/tasks';
import { seedTeams } from './steps/teams';
import { seedUsers } from './steps/users';

export { DEFAULT_DEMO_SEED, DEMO_SCALES, isDemoScale } from './scales';
export type { DemoScale } from './scales';
export { isDemoEndDay } from './time';

/**
 * Deterministic demo data: the fixtures (fixtures/) plus generated records around them.
 *
 * - Same seed + scale + end day => identical rows (every random choice comes from `Random`, there is no clock:
 *   the caller says which day the demo ends on).
 * - The data is generated on the timeline the fixtures are written for (fixtures/timeline.ts, ending on
 *   DEMO_END_DAY), then every timestamp moves by the whole days from DEMO_END_DAY to the end day as it goes in;
 *   telemetry is generated on the end day's own timeline (its weekends are real weekends).
 * - Rows go in through `queryInterface.bulkInsert` in chunks; dates are JS Date objects stringified by
 *   Sequelize for the dialect (DATETIME(3) on MySQL/MariaDB, `YYYY-MM-DD HH:mm:ss.SSS +00:00` on SQLite).
 *   Large tables are generated and inserted repository by repository / team by team, never all at once.
 * - Only one table is written at a time (on SQLite each table is one transaction).
 *
 * Invariants of the generated data (the fixtures obey them too):
 * - every user is in at least one organization; every organization has several teams, apps, git apps and
 *   repositories; every team has at least one manager and one member, each with a job title; team members
 *   are members of the team's organization;
 * - commits and pull requests copy git_app_id and organization_id from their repository; author_id is a
 *   user bound to that git app (so a member of the repository's organization) or null; author_name is set;
 * - pull requests: `open` => merged_at = closed_at = null; `merged` => merged_at = closed_at >= created_at;
 *   `closed` => merged_at = null, closed_at >= created_at; numbers run 1..n per repository;
 * - deployments: of a commit of their repository (sha), created after it, finished after that; incidents name a
 *   sha deployed to production before they opened (or none), resolved_at null or after created_at;
 * - tasks: `done` <=> completed_at set (>= created_at), `canceled` <=> canceled_at set; parent_id is null or an epic
 *   of the same team; epics have no parent and no story points; assignee is null or a member of the team; most have
 *   a status history (task_status_changes, from backlog at creation to their status) and the flow facts derived
 *   from it (db/rollups/flowFacts.ts); those of a team mapped to a tracker's board carry its app, board and ids;
 * - interactions: organization_id is where it happened; the user is a member of it; team_id is null or
 *   a team of that organization the user is a member of; counterpart is null or a member of that organization;
 * - dashboard views: type is a catalog key; `organization` and `private` views have team_id null and an
 *   owner who is an organization member; `team` views have an owner who is a member of that team;
 * - no generated record references a fixture user, and no generated created_at falls on a FIXTURE_DAYS day;
 * - every timestamp lies in [DEMO_START, DEMO_END) (moved to the end day) with millisecond precision; a few
 *   generated records of the same kind in the same scope share a created_at (for id tie-break tests).
 */

export interface SeedDemoOptions {
  scale: DemoScale;
  /**
   * The UTC day (YYYY-MM-DD) the demo ends on: its timeline stops at 00:00 UTC of that day, so its last records
   * are from the day before, and starts a fixed span (DEMO_END - DEMO_START) earlier. DEMO_END_DAY gives the
   * dates the fixtures name.
   */
  endDay: string;
  /** Defaults to DEFAULT_DEMO_SEED. Fixture records are the same for every seed. */
  seed?: number;
  log?: (msg: string) => void;
  /** Rows per INSERT statement (default 2,000). */
  chunkSize?: number;
  /** INSERT statements in flight at once on MySQL/MariaDB (default 4; SQLite always uses 1). */
  concurrency?: number;
}

/**
 * Seeds a migrated, empty database with the demo data of the given scale; returns row counts per table.
 * Does not check that the database is empty (scripts/seed.ts does). Each kind of data is one step (steps/), with a
 * random stream of its own, so a change to one kind leaves the others as they were.
 */
export async function seedDemo(
  sequelize: Sequelize,
  opts: SeedDemoOptions,
): Promise<Record<string, number>> {
  const spec = SCALES[opts.scale];
  if (!spec) throw new Error(`Unknown demo scale "${String(opts.scale)}" (expected ${DEMO_SCALES.join(', ')})`);
  const seed = opts.seed ?? DEFAULT_DEMO_SEED;
  const log = opts.log ?? (() => {});
  const endMs = startOfDay(opts.endDay);
  if (Number.isNaN(endMs)) throw new Error(`The demo's end day must be a date, YYYY-MM-DD (got "${opts.endDay}")`);
  const moveMs = endMs - END_MS;
  const ins = new Inserter(sequelize, opts.chunkSize ?? 2_000, opts.concurrency ?? 4, log, moveMs);
  const s: Seeding = { ins, root: new Random(`demo:${opts.scale}:${seed}`), spec };

  const orgs = await seedOrganizations(s);
  const memberSortFields = await seedUsers(s, orgs);
  const teams = await seedTeams(s, orgs, memberSortFields);
  const boards = await seedApps(s, orgs);
  const repos = await seedRepositories(s, await seedGitApps(s, orgs));
  const deployments = await seedCommits(s, repos);
  await seedPullRequests(s, repos);
  await insertDeploymentsAndIncidents(ins, deployments.rng, deployments.deployed);
  await seedTasks(s, teams, boards);
  await seedInteractions(s, orgs);
  await seedDashboardViews(s, orgs);
  const acme = orgs[0];
  const seededTelemetry = { insertAll: (table: string, rows: Iterable<Row>) => ins.insertAll(table, rows, 'seeded') };
  const usage = new DemoUsageRollups(acme.id);
  await seedTelemetry(seededTelemetry, s.root.fork('telemetry'), spec.telemetry, usage, acme.id, acme.members.map((m) => ({ userId: m.user.id, joinedMs: m.joinedMs + moveMs })), endMs);
  await seedCopilot(seededTelemetry, usage, acme, moveMs, endMs);
  await usage.insert(seededTelemetry);
  await rebuildRollups(sequelize.getQueryInterface());
  return ins.counts;
}
