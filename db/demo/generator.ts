import { DataTypes, Sequelize, Transaction } from 'sequelize';
import { DAY_MS, Random } from './random';
import { seedTelemetry, TelemetrySpec } from './telemetry';
import { markAllCommits } from '../migrations/0015-author-ai-activity';
import { fillFirstReviews } from '../migrations/0016-pull-request-review-times';
import { markAiPullRequests } from '../migrations/0017-pull-request-ai-commits';
import { fillAuthorRepositories } from '../migrations/0018-author-repositories';
import { markShippedChanges } from '../migrations/0019-shipped-changes';
import { fillCommitDays } from '../migrations/0020-commit-days';
import { fillAuthorDays, fillInteractionDays } from '../migrations/0024-activity-rollups';
import { fillLeadTimes } from '../migrations/0021-lead-times';
import { fillPullRequestReviewers, fillPullRequestSamples } from '../migrations/0022-pull-request-samples';
import { fillPeerReviews } from '../migrations/0023-peer-reviews';
import { fillPullRequestMonths } from '../migrations/0028-pull-request-months';
import { hasAiMarker } from '../../src/services/git/aiMarkers';
import {
  DASHBOARD_CATALOG,
  DASHBOARD_CATALOG_KEYS,
  DEMO,
  DEMO_END,
  DEMO_START,
  FIXTURE_APPS,
  FIXTURE_COMMITS,
  FIXTURE_DASHBOARD_VIEWS,
  FIXTURE_DAYS,
  FIXTURE_DEPLOYMENTS,
  FIXTURE_PULL_REQUEST_ACTIVITY,
  FIXTURE_GIT_APPS,
  FIXTURE_INCIDENTS,
  FIXTURE_INTERACTIONS,
  FIXTURE_ORGANIZATION_MEMBERSHIPS,
  FIXTURE_ORGANIZATIONS,
  FIXTURE_PULL_REQUESTS,
  FIXTURE_REPOSITORIES,
  FIXTURE_TASKS,
  FIXTURE_TEAM_MEMBERSHIPS,
  FIXTURE_TEAMS,
  FIXTURE_USER_APPS,
  FIXTURE_USER_GIT_APPS,
  FIXTURE_USERS,
} from './fixtures';

/**
 * Deterministic demo data: the fixtures (fixtures.ts) plus generated records around them.
 *
 * - Same seed + scale + end day => identical rows (every random choice comes from `Random`, there is no clock:
 *   the caller says which day the demo ends on).
 * - The data is generated on the timeline fixtures.ts is written for (ending on DEMO_END_DAY), then every
 *   timestamp moves by the whole days from DEMO_END_DAY to the end day as it goes in; telemetry is generated on
 *   the end day's own timeline (its weekends are real weekends).
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
 * - tasks: `done` <=> completed_at set (>= created_at); parent_id is null or an epic of the same team;
 *   epics have no parent and no story points; assignee is null or a member of the team;
 * - interactions: organization_id is where it happened; the user is a member of it; team_id is null or
 *   a team of that organization the user is a member of; counterpart is null or a member of that organization;
 * - dashboard views: type is a catalog key; `organization` and `private` views have team_id null and an
 *   owner who is an organization member; `team` views have an owner who is a member of that team;
 * - no generated record references a fixture user, and no generated created_at falls on a FIXTURE_DAYS day;
 * - every timestamp lies in [DEMO_START, DEMO_END) (moved to the end day) with millisecond precision; a few
 *   generated records of the same kind in the same scope share a created_at (for id tie-break tests).
 */

export type DemoScale = 'tiny' | 'demo' | 'large';
export const DEMO_SCALES: readonly DemoScale[] = ['tiny', 'demo', 'large'];
export const DEFAULT_DEMO_SEED = 20240101;

export interface SeedDemoOptions {
  scale: DemoScale;
  /**
   * The UTC day (YYYY-MM-DD) the demo ends on: its timeline stops at 00:00 UTC of that day, so its last records
   * are from the day before, and starts a fixed span (DEMO_END - DEMO_START) earlier. DEMO_END_DAY gives the
   * dates fixtures.ts names.
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

interface ScaleSpec {
  /** Generated organizations besides Acme and Globex. */
  extraOrgs: number;
  /** Generated users whose primary organization is Acme / Globex / each extra organization. */
  usersAcme: number;
  usersGlobex: number;
  usersPerExtraOrg: number;
  /** Share of generated users who also belong to a second organization. */
  secondOrgShare: number;
  /** Generated teams per organization (on top of the fixture teams). */
  teamsAcme: number;
  teamsGlobex: number;
  teamsPerExtraOrg: number;
  /** Share of team-assigned members who are in a second team of the same organization. */
  secondTeamShare: number;
  /** Apps / git apps per organization, fixture ones included. */
  appsPerOrg: readonly [number, number];
  gitAppsPerOrg: readonly [number, number];
  /** Repositories per git app (fixture ones included), plus one per `membersPerExtraRepo` organization members. */
  reposPerGitApp: readonly [number, number];
  membersPerExtraRepo: number;
  /** Generated rows (fixtures come on top). */
  commits: number;
  pullRequests: number;
  /** Share of generated commits that are deployed (a few deployments a week per active repository). */
  deployedCommitShare: number;
  tasks: number;
  interactions: number;
  /** Organization-visible views per organization, chance of a team view per team, private views per member. */
  orgViewsPerOrg: number;
  teamViewChance: number;
  privateViewsPerMember: number;
  /** Chance that a generated record reuses the previous created_at in its scope (a tie). */
  tieChance: number;
  /** Acme's members using AI coding tools (db/demo/telemetry.ts). */
  telemetry: TelemetrySpec;
}

const SCALES: Record<DemoScale, ScaleSpec> = {
  tiny: {
    extraOrgs: 1,
    usersAcme: 14,
    usersGlobex: 5,
    usersPerExtraOrg: 4,
    secondOrgShare: 0.1,
    teamsAcme: 2,
    teamsGlobex: 2,
    teamsPerExtraOrg: 2,
    secondTeamShare: 0.2,
    appsPerOrg: [3, 3],
    gitAppsPerOrg: [1, 1],
    reposPerGitApp: [3, 3],
    membersPerExtraRepo: 0,
    commits: 45,
    pullRequests: 16,
    deployedCommitShare: 0.2,
    tasks: 23,
    interactions: 48,
    orgViewsPerOrg: 1,
    teamViewChance: 0.3,
    privateViewsPerMember: 0.1,
    tieChance: 0.15,
    telemetry: { claudeShare: 0.5, geminiShare: 0.1 },
  },
  demo: {
    extraOrgs: 8,
    usersAcme: 600,
    usersGlobex: 200,
    usersPerExtraOrg: 150,
    secondOrgShare: 0.08,
    teamsAcme: 8,
    teamsGlobex: 3,
    teamsPerExtraOrg: 3,
    secondTeamShare: 0.15,
    appsPerOrg: [3, 5],
    gitAppsPerOrg: [1, 3],
    reposPerGitApp: [3, 8],
    membersPerExtraRepo: 0,
    commits: 50_000,
    pullRequests: 5_000,
    deployedCommitShare: 0.06,
    tasks: 10_000,
    interactions: 50_000,
    orgViewsPerOrg: 3,
    teamViewChance: 0.7,
    privateViewsPerMember: 0.05,
    tieChance: 0.03,
    telemetry: { claudeShare: 0.55, geminiShare: 0.05 },
  },
  large: {
    extraOrgs: 18,
    usersAcme: 80_000,
    usersGlobex: 5_000,
    usersPerExtraOrg: 834,
    secondOrgShare: 0.08,
    teamsAcme: 3_200,
    teamsGlobex: 200,
    teamsPerExtraOrg: 33,
    secondTeamShare: 0.15,
    appsPerOrg: [4, 6],
    gitAppsPerOrg: [2, 4],
    reposPerGitApp: [5, 15],
    membersPerExtraRepo: 300,
    commits: 1_000_000,
    pullRequests: 100_000,
    deployedCommitShare: 0.04,
    tasks: 100_000,
    interactions: 500_000,
    orgViewsPerOrg: 5,
    teamViewChance: 0.5,
    privateViewsPerMember: 0.03,
    tieChance: 0.01,
    telemetry: { claudeShare: 0.05, geminiShare: 0.005 },
  },
};

export function isDemoScale(value: string): value is DemoScale {
  return (DEMO_SCALES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------
// Word lists

const EXTRA_ORGS: ReadonlyArray<readonly [name: string, slug: string]> = [
  ['Initech', 'initech'],
  ['Umbrella', 'umbrella'],
  ['Stark Industries', 'stark'],
  ['Wayne Enterprises', 'wayne'],
  ['Hooli', 'hooli'],
  ['Vandelay Industries', 'vandelay'],
  ['Soylent', 'soylent'],
  ['Cyberdyne', 'cyberdyne'],
  ['Wonka Industries', 'wonka'],
  ['Tyrell Corp', 'tyrell'],
  ['Massive Dynamic', 'massive'],
  ['Aperture Science', 'aperture'],
  ['Black Mesa', 'blackmesa'],
  ['Oscorp', 'oscorp'],
  ['Pied Piper', 'piedpiper'],
  ['Dunder Mifflin', 'dundermifflin'],
  ['Blue Sun', 'bluesun'],
  ['Monarch Solutions', 'monarch'],
  ['Nakatomi Trading', 'nakatomi'],
  ['Gringotts', 'gringotts'],
];

const FIRST_NAMES = [
  'Aaliyah', 'Aarav', 'Abigail', 'Adrian', 'Aisha', 'Alejandro', 'Alice', 'Amara', 'Amelia', 'Andre',
  'Anya', 'Arjun', 'Beatriz', 'Ben', 'Bianca', 'Carlos', 'Chen', 'Chloe', 'Daniel', 'Diego',
  'Elena', 'Elif', 'Emeka', 'Emma', 'Farah', 'Felix', 'Fatima', 'Gabriel', 'Hana', 'Hiroshi',
  'Ines', 'Isaac', 'Ivy', 'Jamal', 'Jana', 'Javier', 'Jin', 'Jonas', 'Julia', 'Kai',
  'Kofi', 'Lars', 'Layla', 'Leo', 'Lina', 'Lucas', 'Maya', 'Mateo', 'Mei', 'Mohammed',
  'Nadia', 'Nia', 'Noah', 'Nora', 'Olivia', 'Omar', 'Oskar', 'Priya', 'Quinn', 'Rafael',
  'Ravi', 'Rosa', 'Sakura', 'Samir', 'Sara', 'Sebastian', 'Sofia', 'Tariq', 'Thea', 'Tomas',
  'Uma', 'Valentina', 'Victor', 'Wei', 'Xavier', 'Yara', 'Yusuf', 'Zara', 'Zoe', 'Zhang',
];

const LAST_NAMES = [
  'Abe', 'Adeyemi', 'Alvarez', 'Andersson', 'Bauer', 'Becker', 'Bianchi', 'Brown', 'Chatterjee', 'Chen',
  'Costa', 'Dubois', 'Eriksen', 'Fernandes', 'Fischer', 'Garcia', 'Gomez', 'Gupta', 'Haddad', 'Hansen',
  'Hernandez', 'Ivanova', 'Jansen', 'Johnson', 'Kamau', 'Kim', 'Kowalski', 'Kumar', 'Larsen', 'Lee',
  'Lopez', 'Martin', 'Mendes', 'Meyer', 'Moreau', 'Mueller', 'Nakamura', 'Nguyen', 'Novak', 'Nowak',
  'Okafor', 'Oliveira', 'Olsen', 'Park', 'Patel', 'Petrov', 'Popescu', 'Rahman', 'Reyes', 'Rossi',
  'Santos', 'Sato', 'Schmidt', 'Silva', 'Singh', 'Smith', 'Suzuki', 'Tanaka', 'Taylor', 'Thomas',
  'Torres', 'Tran', 'Uddin', 'Vargas', 'Virtanen', 'Wagner', 'Walker', 'Wang', 'Weber', 'Williams',
  'Wilson', 'Wong', 'Yamamoto', 'Yilmaz', 'Young', 'Zhang', 'Zhou', 'Zimmermann', 'Osei', 'Mensah',
];

const TEAM_NAMES = [
  'Payments', 'Search', 'Identity', 'Data', 'Infrastructure', 'Growth', 'Checkout', 'Billing',
  'Notifications', 'Onboarding', 'Analytics', 'Developer Experience', 'Security', 'Reliability',
  'Frontend', 'API', 'Integrations', 'Machine Learning', 'Design Systems', 'Accounts', 'Messaging',
  'Storage', 'Networking', 'Observability', 'Release Engineering', 'Quality', 'Marketplace', 'Pricing',
  'Logistics', 'Fraud', 'Compliance', 'Internal Tools', 'Documentation', 'Partnerships', 'Localization',
  'Performance', 'Web', 'Desktop', 'Edge', 'Streaming', 'Recommendations', 'Ads', 'Content',
  'Support Tools', 'Experimentation', 'Data Platform', 'Ingestion', 'Core', 'Platform', 'Mobile',
];

const MEMBER_TITLES = [
  'Backend Engineer', 'Backend Engineer', 'Senior Backend Engineer', 'Frontend Engineer', 'Senior Frontend Engineer',
  'Full-stack Engineer', 'Mobile Engineer', 'iOS Engineer', 'Android Engineer', 'Site Reliability Engineer',
  'Data Engineer', 'Machine Learning Engineer', 'QA Engineer', 'Security Engineer', 'DevOps Engineer',
  'Staff Engineer', 'Principal Engineer', 'Software Engineer', 'Software Engineer', 'Junior Software Engineer',
  'Product Designer', 'Product Manager', 'Technical Writer', 'Engineering Intern',
];
const MANAGER_TITLES = ['Engineering Manager', 'Engineering Manager', 'Senior Engineering Manager', 'Tech Lead Manager', 'Director of Engineering'];

type AppCategory = 'issues' | 'chat' | 'git' | 'calendar';
const APP_PROVIDERS: ReadonlyArray<readonly [provider: string, category: AppCategory, name: string]> = [
  ['jira', 'issues', 'Jira'],
  ['linear', 'issues', 'Linear'],
  ['asana', 'issues', 'Asana'],
  ['slack', 'chat', 'Slack'],
  ['msteams', 'chat', 'Microsoft Teams'],
  ['github', 'git', 'GitHub'],
  ['gitlab', 'git', 'GitLab'],
  ['bitbucket', 'git', 'Bitbucket'],
  ['google_calendar', 'calendar', 'Google Calendar'],
  ['outlook', 'calendar', 'Outlook Calendar'],
];

type GitProvider = 'github' | 'gitlab' | 'bitbucket' | 'git';
const GIT_PROVIDERS: ReadonlyArray<readonly [GitProvider, string, number]> = [
  ['github', 'GitHub', 5],
  ['gitlab', 'GitLab', 3],
  ['bitbucket', 'Bitbucket', 2],
  ['git', 'Git', 1],
];

const REPO_NAMES = [
  'api', 'web', 'core', 'gateway', 'auth-service', 'billing', 'payments', 'search', 'mobile-app', 'ios',
  'android', 'frontend', 'backend', 'infra', 'terraform', 'helm-charts', 'docs', 'design-system',
  'data-pipeline', 'etl', 'notifications', 'scheduler', 'worker', 'cli', 'sdk-js', 'sdk-python',
  'analytics', 'admin', 'dashboard', 'monorepo', 'ml-models', 'feature-flags', 'config', 'deploy',
  'ci-templates', 'observability', 'ledger', 'inventory', 'checkout', 'identity', 'storage', 'edge-proxy',
  'website', 'emails', 'search-indexer', 'event-bus', 'rate-limiter', 'image-service', 'reporting', 'exports',
];
const BRANCHES: ReadonlyArray<readonly [string, number]> = [['main', 80], ['master', 12], ['develop', 5], ['trunk', 3]];

const VERBS = ['Fix', 'Add', 'Update', 'Refactor', 'Remove', 'Improve', 'Simplify', 'Optimize', 'Document', 'Test', 'Rename', 'Extract', 'Handle', 'Support', 'Validate', 'Cache', 'Retry', 'Log', 'Migrate', 'Clean up'];
const OBJECTS = [
  'login flow', 'session handling', 'retry logic', 'pagination', 'rate limiter', 'webhook delivery', 'search index',
  'user settings page', 'billing export', 'invoice PDF', 'feature flags', 'onboarding emails', 'health checks',
  'database migrations', 'connection pool', 'error messages', 'API client', 'CI pipeline', 'Docker image',
  'dependency versions', 'date parsing', 'timezone handling', 'cache invalidation', 'audit log', 'password reset',
  'notification preferences', 'dark mode', 'accessibility labels', 'metrics dashboard', 'background jobs',
  'CSV import', 'OAuth callback', 'team permissions', 'build cache', 'flaky tests', 'logging format',
];
const BUG_SYMPTOMS = ['fails on empty input', 'returns 500 for expired sessions', 'is slow for large accounts', 'shows the wrong timezone', 'drops the last page', 'times out under load', 'leaks memory', 'ignores the locale', 'double-sends notifications', 'crashes on Android 12'];
const EPIC_THEMES = ['Q1 reliability push', 'Self-serve onboarding', 'Billing v2', 'Enterprise SSO', 'Mobile redesign', 'Search relevance', 'Data retention', 'Performance budget', 'Observability rollout', 'Accessibility audit', 'API v2', 'Cost reduction', 'Internationalization', 'Zero-downtime deploys'];
const BOT_AUTHORS = ['dependabot[bot]', 'renovate[bot]', 'github-actions[bot]', 'Release Bot', 'Jenkins CI'];
const EXTERNAL_AUTHORS = ['External Contributor', 'Contractor', 'Former Employee'];

const VIEW_SUFFIXES = ['overview', 'weekly review', 'quarterly review', 'deep dive', 'scratchpad', 'board', 'report', 'tracker'];

// ---------------------------------------------------------------------------------------------------
// In-memory state of the generation (generated records only; fixture users never enter these pools)

interface GenUser {
  id: string;
  name: string;
  first: string;
  last: string;
  createdMs: number;
}

interface OrgState {
  id: string;
  name: string;
  slug: string;
  createdMs: number;
  /** Generated members of this organization. */
  members: MemberState[];
  teams: TeamState[];
  apps: { id: string; provider: string; category: AppCategory; createdMs: number }[];
  gitApps: GitAppState[];
  /** Providers by app category, for interaction sources. */
  sources: Record<AppCategory, string[]>;
}

interface MemberState {
  user: GenUser;
  org: OrgState;
  joinedMs: number;
  role: 'admin' | 'manager' | 'collaborator';
  /** Teams of this organization the user belongs to, with the time they joined. */
  teams: { team: TeamState; joinedMs: number }[];
}

interface TeamState {
  id: string;
  org: OrgState;
  name: string;
  createdMs: number;
  fixture: boolean;
  /** Generated members (incl. generated managers). */
  members: { member: MemberState; role: 'member' | 'manager'; title: string; joinedMs: number }[];
}

interface GitAppState {
  id: string;
  org: OrgState;
  createdMs: number;
  /** Generated members bound to this git app: the author pool of its commits and pull requests. */
  authors: MemberState[];
  repos: RepoState[];
}

interface RepoState {
  id: string;
  gitApp: GitAppState;
  createdMs: number;
  fixturePrCount: number;
}

// ---------------------------------------------------------------------------------------------------
// Insertion

type Row = Record<string, unknown>;

const DATE_COLUMNS = ['created_at', 'merged_at', 'closed_at', 'completed_at', 'user_created_at', 'finished_at', 'resolved_at', 'provider_updated_at', 'start_at', 'end_at'];

class Inserter {
  readonly counts: Record<string, number> = {};
  private readonly dateAttributes: Record<string, { type: unknown }>;
  private readonly sqlite: boolean;

  constructor(
    private readonly sequelize: Sequelize,
    readonly chunkSize: number,
    private readonly concurrency: number,
    private readonly log: (msg: string) => void,
    /** How far the written timeline moves to end on the seed's end day (whole days, in ms). */
    private readonly moveMs: number,
  ) {
    this.sqlite = sequelize.getDialect() === 'sqlite';
    // Dialect-normalised DATE(3): on MySQL the bare Date escape would drop the milliseconds.
    // (`normalizeDataType` is what Model.init uses; it is missing from Sequelize 6's typings.)
    const normalizer = sequelize as unknown as { normalizeDataType(type: unknown): unknown };
    const dateType = normalizer.normalizeDataType(DataTypes.DATE(3));
    this.dateAttributes = Object.fromEntries(DATE_COLUMNS.map((c) => [c, { type: dateType }]));
  }

  /**
   * Opens a writer for one table; only one writer may be open at a time. `timeline: 'written'` rows have the
   * dates of fixtures.ts's timeline and move to the end day's; `'seeded'` rows are on the end day's already.
   */
  async open(table: string, timeline: Timeline): Promise<TableWriter> {
    const transaction = this.sqlite ? await this.sequelize.transaction() : undefined;
    return new TableWriter(this, table, transaction, this.sqlite ? 1 : Math.max(1, this.concurrency), timeline === 'written' ? this.moveMs : 0);
  }

  async insertAll(table: string, rows: Iterable<Row>, timeline: Timeline = 'written'): Promise<void> {
    await this.stream(
      table,
      async (writer) => {
        for (const row of rows) await writer.add(row);
      },
      timeline,
    );
  }

  /** Runs `produce` with a writer for the table; commits what it wrote, or rolls back if it throws. */
  async stream(table: string, produce: (writer: TableWriter) => Promise<void>, timeline: Timeline = 'written'): Promise<void> {
    const writer = await this.open(table, timeline);
    try {
      await produce(writer);
      await writer.close();
    } catch (e) {
      await writer.abort();
      throw e;
    }
  }

  async write(table: string, rows: Row[], transaction: Transaction | undefined): Promise<void> {
    await this.sequelize
      .getQueryInterface()
      .bulkInsert(table, rows, { transaction, logging: false }, this.dateAttributes as never);
  }

  report(table: string, count: number, startedMs: number): void {
    this.counts[table] = (this.counts[table] ?? 0) + count;
    this.log(`${table}: ${count.toLocaleString('en-US')} rows (${((performance.now() - startedMs) / 1000).toFixed(1)} s)`);
  }
}

/** Which timeline a table's rows are dated on (see Inserter.open). */
type Timeline = 'written' | 'seeded';

/** The row with each of its timestamps `moveMs` later. */
function moved(row: Row, moveMs: number): Row {
  if (moveMs === 0) return row;
  const out: Row = { ...row };
  for (const column of DATE_COLUMNS) {
    const value = out[column];
    if (value instanceof Date) out[column] = new Date(value.getTime() + moveMs);
  }
  return out;
}

class TableWriter {
  private buffer: Row[] = [];
  private count = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  private readonly startedMs = performance.now();

  constructor(
    private readonly inserter: Inserter,
    readonly table: string,
    private readonly transaction: Transaction | undefined,
    private readonly maxInFlight: number,
    private readonly moveMs: number,
  ) {}

  async add(row: Row): Promise<void> {
    this.buffer.push(moved(row, this.moveMs));
    if (this.buffer.length >= this.inserter.chunkSize) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.count += rows.length;
    const p: Promise<void> = this.inserter.write(this.table, rows, this.transaction).then(
      () => void this.inFlight.delete(p),
      (e: unknown) => {
        this.inFlight.delete(p);
        this.failure ??= e;
      },
    );
    this.inFlight.add(p);
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }

  async close(): Promise<number> {
    await this.flush();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
    if (this.transaction) await this.transaction.commit();
    this.inserter.report(this.table, this.count, this.startedMs);
    return this.count;
  }

  async abort(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    if (this.transaction) await this.transaction.rollback().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers

const toDate = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

/** 00:00 UTC of a YYYY-MM-DD day that exists, else NaN. */
function startOfDay(day: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00.000Z`) : NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? NaN : ms;
}

/** A day the demo can end on: a real date, YYYY-MM-DD. */
export const isDemoEndDay = (value: string): boolean => !Number.isNaN(startOfDay(value));

const START_MS = DEMO_START.getTime();
const END_MS = DEMO_END.getTime();
const RESERVED_DAYS = new Set(FIXTURE_DAYS.map((d) => Math.floor(Date.parse(`${d}T00:00:00.000Z`) / DAY_MS)));
const isReserved = (ms: number) => RESERVED_DAYS.has(Math.floor(ms / DAY_MS));

/**
 * A created_at in [from, to) that is not on a fixture day: a draw on a reserved day moves by whole days
 * (forward, then backward) to the nearest free day inside the range.
 */
function createdAt(rng: Random, fromMs: number, toMs: number): number {
  const from = Math.max(START_MS, fromMs);
  const to = Math.min(END_MS, Math.max(toMs, from + 1));
  const t = rng.timeMs(from, to);
  if (!isReserved(t)) return t;
  for (let k = 1; k <= 400; k++) {
    const f = t + k * DAY_MS;
    if (f < to && !isReserved(f)) return f;
    const b = t - k * DAY_MS;
    if (b >= from && !isReserved(b)) return b;
    if (f >= to && b < from) break;
  }
  return t;
}

/** n sorted created_at values in [from, to); with probability `tieChance` a value repeats its predecessor. */
function sortedCreatedAts(rng: Random, n: number, fromMs: number, toMs: number, tieChance: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = createdAt(rng, fromMs, toMs);
  out.sort();
  for (let i = 1; i < n; i++) if (rng.chance(tieChance)) out[i] = out[i - 1];
  return out;
}

/** A later timestamp (e.g. merged_at), at least 1 ms after `fromMs` when possible, capped below DEMO_END. */
function laterMs(rng: Random, fromMs: number, minMs: number, maxMs: number): number {
  return Math.min(fromMs + rng.durationMs(minMs, maxMs), END_MS - 1);
}

interface DeployedCommit {
  repo: RepoState;
  sha: string;
  atMs: number;
}

/** The first moment at or after `ms` that is on no fixture day; undefined past the demo's end. */
function freeMs(ms: number): number | undefined {
  let t = ms;
  while (isReserved(t)) t += DAY_MS;
  return t < END_MS ? t : undefined;
}

/**
 * Deployments of deployed commits (DESIGN §13): to production, some to staging first, about one in eight failed.
 * Some successful production deployments cause an incident that names the deployed sha; most are resolved within
 * hours, a few stay open.
 */
async function insertDeploymentsAndIncidents(ins: Inserter, rng: Random, deployed: DeployedCommit[]): Promise<void> {
  const incidents: Row[] = FIXTURE_INCIDENTS.map((f) => ({ ...f, created_at: toDate(f.created_at), resolved_at: toDate(f.resolved_at), provider_updated_at: null }));
  let externalId = 10_000;
  await ins.stream('deployments', async (w) => {
    for (const f of FIXTURE_DEPLOYMENTS) await w.add({ ...f, created_at: toDate(f.created_at), finished_at: toDate(f.finished_at) });
    for (const d of deployed) {
      const g = d.repo.gitApp;
      const placement = { repository_id: d.repo.id, git_app_id: g.id, organization_id: g.org.id };
      const environment = rng.chance(0.25) ? 'staging' : 'production';
      const created = freeMs(laterMs(rng, d.atMs, 10 * MINUTE, 2 * DAY_MS));
      if (created === undefined) continue;
      const finished = laterMs(rng, created, 2 * MINUTE, 40 * MINUTE);
      const status = rng.chance(0.12) ? 'failure' : 'success';
      await w.add({
        id: rng.id('dep_'),
        ...placement,
        external_id: String(externalId++),
        environment,
        status,
        sha: d.sha,
        created_at: new Date(created),
        finished_at: new Date(finished),
      });
      if (status !== 'success' || environment !== 'production' || !rng.chance(0.1)) continue;
      const opened = freeMs(laterMs(rng, finished, 5 * MINUTE, 3 * DAY_MS));
      if (opened === undefined) continue;
      const resolved = rng.chance(0.93) ? laterMs(rng, opened, 15 * MINUTE, 2 * DAY_MS) : null;
      incidents.push({
        id: rng.id('inc_'),
        ...placement,
        external_id: String(externalId++),
        title: rng.pick(INCIDENT_TITLES),
        cause_sha: rng.chance(0.85) ? d.sha : null,
        created_at: new Date(opened),
        resolved_at: resolved === null || resolved >= END_MS - 1 ? null : new Date(resolved),
        provider_updated_at: null,
      });
    }
  });
  await ins.insertAll('incidents', incidents);
}

const INCIDENT_TITLES = [
  'Elevated 5xx rate on checkout',
  'Login fails for SSO users',
  'Search results stale',
  'Payment webhooks delayed',
  'Memory leak in worker pool',
  'Dashboard timeouts',
  'Mobile push notifications not sent',
  'Exports stuck in queue',
];

/** Splits `total` into integer parts proportional to `weights` (largest remainder, ties by index). */
function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0 || sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w / sum) * total);
  const parts = exact.map(Math.floor);
  let rest = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) parts[order[k][1]]++;
  return parts;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

function slugify(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '');
}

// ---------------------------------------------------------------------------------------------------

/** What every seeding step shares: where rows go, the root of the random streams, and the scale. */
interface Seeding {
  ins: Inserter;
  root: Random;
  spec: ScaleSpec;
}

/**
 * Seeds a migrated, empty database with the demo data of the given scale; returns row counts per table.
 * Does not check that the database is empty (scripts/seed.ts does). Each kind of data is one step below, with a
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

  await ins.insertAll('dashboard_catalog', DASHBOARD_CATALOG.map((e) => ({ ...e })));
  const orgs = await seedOrganizations(s);
  const memberSortFields = await seedUsers(s, orgs);
  const teams = await seedTeams(s, orgs, memberSortFields);
  await seedApps(s, orgs);
  const repos = await seedRepositories(s, await seedGitApps(s, orgs));
  const deployments = await seedCommits(s, repos);
  await seedPullRequests(s, repos);
  await insertDeploymentsAndIncidents(ins, deployments.rng, deployments.deployed);
  await seedTasks(s, teams);
  await seedInteractions(s, orgs);
  await seedDashboardViews(s, orgs);
  const acme = orgs[0];
  const seededTelemetry = { insertAll: (table: string, rows: Iterable<Row>) => ins.insertAll(table, rows, 'seeded') };
  await seedTelemetry(seededTelemetry, s.root.fork('telemetry'), spec.telemetry, acme.id, acme.members.map((m) => ({ userId: m.user.id, joinedMs: m.joinedMs + moveMs })), endMs);
  // What the commit and telemetry writers would have kept, had the rows come through them.
  await markAllCommits(sequelize.getQueryInterface());
  await fillFirstReviews(sequelize.getQueryInterface());
  await markAiPullRequests(sequelize.getQueryInterface());
  await fillAuthorRepositories(sequelize.getQueryInterface());
  await markShippedChanges(sequelize.getQueryInterface());
  await fillCommitDays(sequelize.getQueryInterface());
  await fillLeadTimes(sequelize.getQueryInterface());
  await fillPullRequestReviewers(sequelize.getQueryInterface());
  await fillPullRequestSamples(sequelize.getQueryInterface());
  await fillPullRequestMonths(sequelize.getQueryInterface());
  await fillPeerReviews(sequelize.getQueryInterface());
  await fillAuthorDays(sequelize.getQueryInterface());
  await fillInteractionDays(sequelize.getQueryInterface());
  return ins.counts;
}

/** Organizations: the fixtures', then generated ones. */
async function seedOrganizations({ ins, root, spec }: Seeding): Promise<OrgState[]> {
  const rngOrg = root.fork('organizations');
  const blankSources = (): Record<AppCategory, string[]> => ({ issues: [], chat: [], git: [], calendar: [] });
  const orgs: OrgState[] = FIXTURE_ORGANIZATIONS.map((o) => ({
    id: o.id,
    name: o.name,
    slug: o.id === DEMO.orgs.acme ? 'acme' : 'globex',
    createdMs: Date.parse(o.created_at),
    members: [],
    teams: [],
    apps: [],
    gitApps: [],
    sources: blankSources(),
  }));
  for (let i = 0; i < spec.extraOrgs; i++) {
    const [name, slug] = EXTRA_ORGS[i % EXTRA_ORGS.length];
    const round = Math.floor(i / EXTRA_ORGS.length);
    orgs.push({
      id: rngOrg.id('org_'),
      name: round ? `${name} ${round + 1}` : name,
      slug: round ? `${slug}${round + 1}` : slug,
      createdMs: createdAt(rngOrg, START_MS, START_MS + 150 * DAY_MS),
      members: [],
      teams: [],
      apps: [],
      gitApps: [],
      sources: blankSources(),
    });
  }
  await ins.insertAll('organizations', [
    ...FIXTURE_ORGANIZATIONS.map((o) => ({ ...o, created_at: toDate(o.created_at) })),
    ...orgs.slice(2).map((o) => ({ id: o.id, name: o.name, created_at: new Date(o.createdMs) })),
  ]);
  return orgs;
}

/** Users and which organizations they join; returns each user's fields that membership rows carry. */
async function seedUsers({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<(userId: string) => Row> {
  const [acme, globex] = orgs;
  const rngUser = root.fork('users');
  const emailCounts = new Map<string, number>();
  // SCIM name parts as an identity provider would have sent them (db/models/people.ts).
  const nameParts = (given: string, family: string) => ({ given_name: given, family_name: family, formatted_name: `${given} ${family}` });
  const userRows: Row[] = FIXTURE_USERS.map((u) => {
    const [given, ...family] = u.name.split(' ');
    return { ...u, ...nameParts(given, family.join(' ')), created_at: toDate(u.created_at) };
  });
  const addMember = (user: GenUser, org: OrgState, joinedMs: number): MemberState => {
    const m: MemberState = { user, org, joinedMs, role: 'collaborator', teams: [] };
    org.members.push(m);
    return m;
  };
  for (const org of orgs) {
    const n = org === acme ? spec.usersAcme : org === globex ? spec.usersGlobex : spec.usersPerExtraOrg;
    let previousMs = -1;
    for (let i = 0; i < n; i++) {
      const first = rngUser.pick(FIRST_NAMES);
      const last = rngUser.pick(LAST_NAMES);
      const local = `${slugify(first)}.${slugify(last)}`;
      const key = `${local}@${org.slug}.test`;
      const seen = (emailCounts.get(key) ?? 0) + 1;
      emailCounts.set(key, seen);
      const email = seen === 1 ? key : `${local}${seen}@${org.slug}.test`;
      const createdMs =
        previousMs >= 0 && rngUser.chance(spec.tieChance)
          ? previousMs
          : createdAt(rngUser, org.createdMs + HOUR, END_MS - 60 * DAY_MS);
      previousMs = createdMs;
      const user: GenUser = { id: rngUser.id('usr_'), name: `${first} ${last}`, first, last, createdMs };
      userRows.push({ id: user.id, name: user.name, email, ...nameParts(first, last), is_active: !rngUser.chance(0.02), created_at: new Date(createdMs) });
      addMember(user, org, createdMs);
      if (orgs.length > 1 && rngUser.chance(spec.secondOrgShare)) {
        let other = rngUser.pick(orgs);
        if (other === org) other = orgs[(orgs.indexOf(org) + 1) % orgs.length];
        addMember(user, other, createdAt(rngUser, Math.max(createdMs, other.createdMs), END_MS - 30 * DAY_MS));
      }
    }
  }
  await ins.insertAll('users', userRows);
  // Membership rows carry their user's sort fields (migration 0002).
  const userById = new Map(userRows.map((u) => [u.id as string, u]));
  const memberSortFields = (userId: string): Row => {
    const u = userById.get(userId)!;
    return { user_name: u.name, user_email: u.email, user_created_at: u.created_at };
  };
  userRows.length = 0;
  return memberSortFields;
}

/** Teams, who is in them and with which role, and the organization roles that follow; their membership rows. */
/** Teams, who is in which (with titles and roles), and each member's organization role; written in that order. */
async function seedTeams({ ins, root, spec }: Seeding, orgs: OrgState[], memberSortFields: (userId: string) => Row): Promise<TeamState[]> {
  const rngTeam = root.fork('teams');
  const teams = createTeams(rngTeam, spec, orgs);
  staffTeams(rngTeam, spec, orgs);
  assignOrganizationRoles(rngTeam, orgs);
  await writeTeams(ins, orgs, teams, memberSortFields);
  return teams;
}

/** The fixture teams, then each organization's generated ones (names from the list, numbered past its end). */
function createTeams(rngTeam: Random, spec: ScaleSpec, orgs: OrgState[]): TeamState[] {
  const [acme, globex] = orgs;
  const teams: TeamState[] = [];
  for (const f of FIXTURE_TEAMS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    const t: TeamState = { id: f.id, org, name: f.name, createdMs: Date.parse(f.created_at), fixture: true, members: [] };
    org.teams.push(t);
    teams.push(t);
  }
  for (const org of orgs) {
    const n = org === acme ? spec.teamsAcme : org === globex ? spec.teamsGlobex : spec.teamsPerExtraOrg;
    const used = new Set(org.teams.map((t) => t.name));
    const names = rngTeam.shuffle(TEAM_NAMES.filter((name) => !used.has(name)));
    let previousMs = -1;
    for (let i = 0; i < n; i++) {
      const base = names[i % names.length];
      const round = Math.floor(i / names.length);
      const createdMs =
        previousMs >= 0 && rngTeam.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngTeam, org.createdMs + DAY_MS, Math.min(org.createdMs + 400 * DAY_MS, END_MS - 90 * DAY_MS));
      previousMs = createdMs;
      const t: TeamState = { id: rngTeam.id('team_'), org, name: round ? `${base} ${round + 1}` : base, createdMs, fixture: false, members: [] };
      org.teams.push(t);
      teams.push(t);
    }
  }
  return teams;
}

/** A manager per generated team first, then members (some in two teams, some in none); no generated team is left without a manager or a member. */
function staffTeams(rngTeam: Random, spec: ScaleSpec, orgs: OrgState[]): void {
  const joinTeam = (team: TeamState, member: MemberState, role: 'member' | 'manager') => {
    const joinedMs = createdAt(rngTeam, Math.max(member.joinedMs, team.createdMs), END_MS - 14 * DAY_MS);
    const title = role === 'manager' ? rngTeam.pick(MANAGER_TITLES) : rngTeam.pick(MEMBER_TITLES);
    team.members.push({ member, role, title, joinedMs });
    member.teams.push({ team, joinedMs });
  };
  for (const org of orgs) {
    if (org.teams.length === 0) continue;
    // Managers first, one per generated team (from members not yet in a team), then everyone else.
    const pool = rngTeam.shuffle(org.members);
    let next = 0;
    for (const team of org.teams) {
      if (team.fixture || next >= pool.length) continue;
      joinTeam(team, pool[next++], 'manager');
    }
    for (; next < pool.length; next++) {
      const member = pool[next];
      if (!rngTeam.chance(0.92)) continue; // some people are in no team
      const ti = rngTeam.int(0, org.teams.length - 1);
      joinTeam(org.teams[ti], member, 'member');
      if (org.teams.length > 1 && rngTeam.chance(spec.secondTeamShare)) {
        const k = rngTeam.int(0, org.teams.length - 2);
        joinTeam(org.teams[k >= ti ? k + 1 : k], member, 'member');
      }
    }
    for (const team of org.teams) {
      if (team.fixture) continue;
      // Every generated team needs a manager and at least one member.
      const needsManager = !team.members.some((m) => m.role === 'manager');
      const needsMember = !team.members.some((m) => m.role === 'member');
      if (needsManager || needsMember) {
        const inTeam = new Set(team.members.map((m) => m.member));
        const outside = org.members.filter((m) => !inTeam.has(m));
        if (needsManager && outside.length > 0) {
          const m = outside.splice(rngTeam.int(0, outside.length - 1), 1)[0];
          joinTeam(team, m, 'manager');
        }
        if (needsMember && outside.length > 0) joinTeam(team, rngTeam.pick(outside), 'member');
      }
      // Larger teams sometimes have a co-manager.
      const plain = team.members.filter((m) => m.role === 'member');
      if (plain.length >= 4 && rngTeam.chance(0.15)) {
        const m = rngTeam.pick(plain);
        m.role = 'manager';
        m.title = rngTeam.pick(MANAGER_TITLES);
      }
    }
  }
}

/** Team managers are organization managers; a few admins (at least one per organization). */
function assignOrganizationRoles(rngTeam: Random, orgs: OrgState[]): void {
  for (const org of orgs) {
    for (const m of org.members) {
      if (m.teams.some((t) => t.team.members.some((x) => x.member === m && x.role === 'manager'))) m.role = 'manager';
    }
    const hasFixtureAdmin = FIXTURE_ORGANIZATION_MEMBERSHIPS.some((f) => f.organization_id === org.id && f.role === 'admin');
    for (let i = 0; i < org.members.length; i++) {
      const m = org.members[i];
      if ((i === 0 && !hasFixtureAdmin) || rngTeam.chance(0.02)) m.role = 'admin';
      else if (m.role === 'collaborator' && rngTeam.chance(0.04)) m.role = 'manager';
    }
  }

}

async function writeTeams(ins: Inserter, orgs: OrgState[], teams: TeamState[], memberSortFields: (userId: string) => Row): Promise<void> {
  const teamRows: Row[] = [
    ...FIXTURE_TEAMS.map((t) => ({ ...t, created_at: toDate(t.created_at) })),
    ...teams.filter((t) => !t.fixture).map((t) => ({ id: t.id, organization_id: t.org.id, name: t.name, created_at: new Date(t.createdMs) })),
  ];
  await ins.insertAll('teams', teamRows);

  function* orgMembershipRows(): Generator<Row> {
    for (const f of FIXTURE_ORGANIZATION_MEMBERSHIPS) yield { ...f, created_at: toDate(f.created_at), ...memberSortFields(f.user_id) };
    for (const org of orgs) {
      for (const m of org.members) {
        yield { organization_id: org.id, user_id: m.user.id, role: m.role, created_at: new Date(m.joinedMs), ...memberSortFields(m.user.id) };
      }
    }
  }
  await ins.insertAll('organization_memberships', orgMembershipRows());

  function* teamMembershipRows(): Generator<Row> {
    for (const f of FIXTURE_TEAM_MEMBERSHIPS) yield { ...f, created_at: toDate(f.created_at), ...memberSortFields(f.user_id) };
    for (const team of teams) {
      for (const m of team.members) {
        yield { team_id: team.id, user_id: m.member.user.id, title: m.title, role: m.role, created_at: new Date(m.joinedMs), ...memberSortFields(m.member.user.id) };
      }
    }
  }
  await ins.insertAll('team_memberships', teamMembershipRows());
}

/** Apps of each organization and the users bound to them. */
async function seedApps({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
  const rngApp = root.fork('apps');
  const appRows: Row[] = FIXTURE_APPS.map((a) => ({ ...a, created_at: toDate(a.created_at) }));
  for (const f of FIXTURE_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    org.apps.push({ id: f.id, provider: f.provider, category: f.category, createdMs: Date.parse(f.created_at) });
    org.sources[f.category].push(f.provider);
  }
  for (const org of orgs) {
    const target = rngApp.int(spec.appsPerOrg[0], spec.appsPerOrg[1]);
    const have = new Set(org.apps.map((a) => a.provider));
    const candidates = rngApp.shuffle(APP_PROVIDERS.filter(([p]) => !have.has(p)));
    // Make sure each organization has a chat and an issues app before anything else.
    candidates.sort((a, b) => rank(org, a[1]) - rank(org, b[1]));
    let previousMs = -1;
    for (const [provider, category, name] of candidates.slice(0, Math.max(0, target - org.apps.length))) {
      const createdMs =
        previousMs >= 0 && rngApp.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngApp, org.createdMs + HOUR, Math.min(org.createdMs + 300 * DAY_MS, END_MS - 60 * DAY_MS));
      previousMs = createdMs;
      const id = rngApp.id('app_');
      org.apps.push({ id, provider, category, createdMs });
      org.sources[category].push(provider);
      appRows.push({ id, organization_id: org.id, provider, category, name, is_active: !rngApp.chance(0.12), created_at: new Date(createdMs) });
    }
  }
  await ins.insertAll('apps', appRows);

  function* userAppRows(): Generator<Row> {
    for (const f of FIXTURE_USER_APPS) yield { ...f, created_at: toDate(f.created_at) };
    for (const org of orgs) {
      for (const m of org.members) {
        for (const app of org.apps) {
          if (!rngApp.chance(0.6)) continue;
          yield {
            user_id: m.user.id,
            app_id: app.id,
            external_user_id: externalUserId(rngApp, app.provider, m.user, org),
            created_at: new Date(createdAt(rngApp, Math.max(m.joinedMs, app.createdMs), END_MS)),
          };
        }
      }
    }
  }
  await ins.insertAll('user_apps', userAppRows());
}

/** Git apps and the users bound to them (their authors). */
async function seedGitApps({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<{ gitApps: GitAppState[]; rng: Random }> {
  const rngGit = root.fork('git');
  const gitAppRows: Row[] = FIXTURE_GIT_APPS.map((g) => ({ ...g, created_at: toDate(g.created_at) }));
  const gitApps: GitAppState[] = [];
  for (const f of FIXTURE_GIT_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    const g: GitAppState = { id: f.id, org, createdMs: Date.parse(f.created_at), authors: [], repos: [] };
    org.gitApps.push(g);
    gitApps.push(g);
  }
  for (const org of orgs) {
    const target = rngGit.int(spec.gitAppsPerOrg[0], spec.gitAppsPerOrg[1]);
    const nameCounts = new Map<string, number>();
    let previousMs = -1;
    for (let i = org.gitApps.length; i < target; i++) {
      const [provider, label] = rngGit.weighted(GIT_PROVIDERS.map((p) => [p, p[2]] as const));
      const baseName = `${org.name} ${label}`;
      const k = (nameCounts.get(baseName) ?? 0) + 1;
      nameCounts.set(baseName, k);
      const createdMs =
        previousMs >= 0 && rngGit.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngGit, org.createdMs + HOUR, Math.min(org.createdMs + 300 * DAY_MS, END_MS - 90 * DAY_MS));
      previousMs = createdMs;
      const g: GitAppState = { id: rngGit.id('gapp_'), org, createdMs, authors: [], repos: [] };
      org.gitApps.push(g);
      gitApps.push(g);
      if (!org.sources.git.includes(provider)) org.sources.git.push(provider);
      gitAppRows.push({ id: g.id, organization_id: org.id, provider, name: k === 1 ? baseName : `${baseName} ${k}`, is_active: !rngGit.chance(0.1), created_at: new Date(createdMs) });
    }
  }
  for (const f of FIXTURE_GIT_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    if (!org.sources.git.includes(f.provider)) org.sources.git.unshift(f.provider);
  }
  await ins.insertAll('git_apps', gitAppRows);

  function* userGitAppRows(): Generator<Row> {
    for (const f of FIXTURE_USER_GIT_APPS) yield { ...f, created_at: toDate(f.created_at) };
    for (const org of orgs) {
      for (const m of org.members) {
        org.gitApps.forEach((g, i) => {
          if (!rngGit.chance(i === 0 ? 0.8 : 0.35)) return;
          g.authors.push(m);
        });
      }
      for (const g of org.gitApps) {
        for (const m of g.authors) {
          yield {
            user_id: m.user.id,
            git_app_id: g.id,
            username: gitUsername(rngGit, m.user),
            created_at: new Date(createdAt(rngGit, Math.max(m.joinedMs, g.createdMs), END_MS)),
          };
        }
      }
    }
  }
  await ins.insertAll('user_git_apps', userGitAppRows());

  return { gitApps, rng: rngGit };
}

/** Repositories of each git app (more for larger organizations), from the git apps' random stream. */
async function seedRepositories({ ins, spec }: Seeding, { gitApps, rng: rngGit }: { gitApps: GitAppState[]; rng: Random }): Promise<RepoState[]> {
  const repoRows: Row[] = FIXTURE_REPOSITORIES.map((r) => ({ ...r, created_at: toDate(r.created_at) }));
  const repos: RepoState[] = [];
  for (const f of FIXTURE_REPOSITORIES) {
    const g = gitApps.find((x) => x.id === f.git_app_id)!;
    const r: RepoState = {
      id: f.id,
      gitApp: g,
      createdMs: Date.parse(f.created_at),
      fixturePrCount: FIXTURE_PULL_REQUESTS.filter((p) => p.repository_id === f.id).length,
    };
    g.repos.push(r);
    repos.push(r);
  }
  for (const g of gitApps) {
    const org = g.org;
    const extra = spec.membersPerExtraRepo > 0 ? Math.floor(org.members.length / spec.membersPerExtraRepo / org.gitApps.length) : 0;
    const target = rngGit.int(spec.reposPerGitApp[0], spec.reposPerGitApp[1]) + extra;
    const used = new Set(FIXTURE_REPOSITORIES.filter((r) => r.git_app_id === g.id).map((r) => r.name));
    const names = rngGit.shuffle(REPO_NAMES.filter((n) => !used.has(n)));
    let previousMs = -1;
    for (let i = 0; g.repos.length < target; i++) {
      const round = Math.floor(i / names.length);
      const name = round ? `${names[i % names.length]}-${round + 1}` : names[i % names.length];
      const createdMs =
        previousMs >= 0 && rngGit.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngGit, g.createdMs + HOUR, Math.min(g.createdMs + 500 * DAY_MS, END_MS - 120 * DAY_MS));
      previousMs = createdMs;
      const r: RepoState = { id: rngGit.id('repo_'), gitApp: g, createdMs, fixturePrCount: 0 };
      g.repos.push(r);
      repos.push(r);
      repoRows.push({
        id: r.id,
        git_app_id: g.id,
        organization_id: org.id,
        name,
        full_name: `${org.slug}/${name}`,
        default_branch: rngGit.weighted(BRANCHES),
        is_private: rngGit.chance(0.7),
        created_at: new Date(createdMs),
      });
    }
  }
  await ins.insertAll('repositories', repoRows);
  return repos;
}

/** Commits, streamed repository by repository; returns the ones deployed, and the stream that chose them. */
async function seedCommits({ ins, root, spec }: Seeding, repos: RepoState[]): Promise<{ deployed: DeployedCommit[]; rng: Random }> {
  const rngCommit = root.fork('commits');
  const commitShares = allocate(spec.commits, repos.map(() => 0.15 + rngCommit.float() ** 2));
  // Deployed commits are chosen with a random stream of their own, so the commits are the same as without them.
  const rngDeploy = root.fork('deployments');
  // AI coding tools' marks too: a share of members' commits, half of what the organization's Claude Code users
  // make likely, carries Claude Code's trailer.
  const rngAi = root.fork('commit-ai-markers');
  const deployed: DeployedCommit[] = [];
  {
    await ins.stream('commits', async (w) => {
      for (const f of FIXTURE_COMMITS) await w.add({ ...f, ai_assisted: hasAiMarker(f.message), created_at: toDate(f.created_at) });
      for (let ri = 0; ri < repos.length; ri++) {
        const repo = repos[ri];
        const g = repo.gitApp;
        const times = sortedCreatedAts(rngCommit, commitShares[ri], repo.createdMs + MINUTE, END_MS, spec.tieChance);
        for (let i = 0; i < times.length; i++) {
          const author = g.authors.length > 0 && rngCommit.chance(0.93) ? rngCommit.pick(g.authors).user : null;
          const additions = rngCommit.durationMs(1, 1500);
          const sha = rngCommit.hex(40);
          if (rngDeploy.chance(spec.deployedCommitShare)) deployed.push({ repo, sha, atMs: times[i] });
          const message = commitMessage(rngCommit) + (author && rngAi.chance(spec.telemetry.claudeShare / 2) ? CLAUDE_CODE_TRAILER : '');
          await w.add({
            id: rngCommit.id('cmt_'),
            repository_id: repo.id,
            git_app_id: g.id,
            organization_id: g.org.id,
            sha,
            message,
            ai_assisted: hasAiMarker(message),
            author_id: author ? author.id : null,
            author_name: author ? author.name : rngCommit.chance(0.7) ? rngCommit.pick(BOT_AUTHORS) : rngCommit.pick(EXTERNAL_AUTHORS),
            additions,
            deletions: rngCommit.chance(0.15) ? 0 : rngCommit.int(0, additions),
            created_at: new Date(times[i]),
          });
        }
      }
    });
  }
  return { deployed, rng: rngDeploy };
}

/** Pull requests, streamed repository by repository. */
async function seedPullRequests({ ins, root, spec }: Seeding, repos: RepoState[]): Promise<void> {
  // Review activity with a stream of its own, written after the pull requests it is on.
  const rngReview = root.fork('pull-request-reviews');
  const activity: Row[] = FIXTURE_PULL_REQUEST_ACTIVITY.map((f) => ({ ...f, created_at: toDate(f.created_at) }));
  const rngPr = root.fork('pull_requests');
  const prShares = allocate(spec.pullRequests, repos.map(() => 0.15 + rngPr.float() ** 2));
  // Sizes and AI marks with a stream of their own: the pull requests are otherwise the same as without them.
  const rngSize = root.fork('pull-request-sizes');
  {
    await ins.stream('pull_requests', async (w) => {
      for (const f of FIXTURE_PULL_REQUESTS) {
        await w.add({ ...f, additions: null, deletions: null, ai_assisted: false, created_at: toDate(f.created_at), merged_at: toDate(f.merged_at), closed_at: toDate(f.closed_at) });
      }
      for (let ri = 0; ri < repos.length; ri++) {
        const repo = repos[ri];
        const g = repo.gitApp;
        const times = sortedCreatedAts(rngPr, prShares[ri], repo.createdMs + HOUR, END_MS, spec.tieChance);
        for (let i = 0; i < times.length; i++) {
          const created = times[i];
          const ageDays = (END_MS - created) / DAY_MS;
          // Old pull requests are rarely still open.
          const state = rngPr.weighted<'open' | 'closed' | 'merged'>([
            ['merged', 70],
            ['closed', 12],
            ['open', ageDays < 30 ? 40 : 6],
          ]);
          const author = g.authors.length > 0 && rngPr.chance(0.95) ? rngPr.pick(g.authors).user : null;
          let mergedAt: Date | null = null;
          let closedAt: Date | null = null;
          if (state === 'merged') {
            mergedAt = new Date(laterMs(rngPr, created, 10 * MINUTE, 21 * DAY_MS));
            closedAt = mergedAt;
          } else if (state === 'closed') {
            closedAt = new Date(laterMs(rngPr, created, 5 * MINUTE, 60 * DAY_MS));
          }
          const id = rngPr.id('pr_');
          await w.add({
            id,
            repository_id: repo.id,
            git_app_id: g.id,
            organization_id: g.org.id,
            number: repo.fixturePrCount + i + 1,
            title: prTitle(rngPr),
            state,
            author_id: author ? author.id : null,
            ...pullRequestSize(rngSize),
            ai_assisted: author !== null && rngSize.chance(spec.telemetry.claudeShare / 2),
            created_at: new Date(created),
            merged_at: mergedAt,
            closed_at: closedAt,
          });
          activity.push(...reviewsOf(rngReview, { id, repo, authorId: author?.id ?? null, createdMs: created, endMs: closedAt?.getTime() ?? END_MS, merged: state === 'merged' }));
        }
      }
    });
  }
  await ins.stream('pull_request_activities', async (w) => {
    for (const row of activity) await w.add(row);
  });
}

/**
 * A pull request's review activity, consistent with it: between its opening and its close, by members of its git
 * app other than its author. Most merged pull requests were approved first, some after changes were asked for and
 * new commits pushed; one in eight went in unreviewed; a few reviewers do most of the reviews.
 */
function reviewsOf(rng: Random, pr: { id: string; repo: RepoState; authorId: string | null; createdMs: number; endMs: number; merged: boolean }): Row[] {
  const reviewers = pr.repo.gitApp.authors.filter((a) => a.user.id !== pr.authorId);
  if (reviewers.length === 0 || (pr.merged && rng.chance(0.12))) return [];
  const g = pr.repo.gitApp;
  const rows: Row[] = [];
  let at = pr.createdMs;
  const add = (kind: string, actorId: string | null) => {
    const t = freeMs(laterMs(rng, at, 5 * MINUTE, Math.max(10 * MINUTE, (pr.endMs - at) / 3)));
    if (t === undefined || t >= pr.endMs) return;
    at = t;
    rows.push({ id: rng.id('pra_'), pull_request_id: pr.id, repository_id: pr.repo.id, git_app_id: g.id, organization_id: g.org.id, kind, actor_id: actorId, external_id: `demo:${rows.length}`, created_at: new Date(t) });
  };
  // The first reviewers of a repository's list review most: a squared draw favours them.
  const reviewer = () => reviewers[Math.floor(rng.float() ** 2 * reviewers.length)].user.id;
  const first = reviewer();
  for (let i = rng.int(0, 2); i > 0; i--) add('comment', rng.chance(0.8) ? first : reviewer());
  if (rng.chance(0.3)) {
    add('changes_requested', first);
    add('commit', pr.authorId);
  }
  if (pr.merged || rng.chance(0.3)) add('approved', first);
  return rows;
}

/** Tasks, team by team (epics first, so children come after their epic). */
async function seedTasks({ ins, root, spec }: Seeding, teams: TeamState[]): Promise<void> {
  const rngTask = root.fork('tasks');
  const taskShares = allocate(spec.tasks, teams.map((t) => (t.members.length + 2) * (0.5 + rngTask.float())));
  {
    await ins.stream('tasks', async (w) => {
      for (const f of FIXTURE_TASKS) {
        await w.add({ ...f, created_at: toDate(f.created_at), completed_at: toDate(f.completed_at) });
      }
      for (let ti = 0; ti < teams.length; ti++) {
        const team = teams[ti];
        const n = taskShares[ti];
        if (n === 0) continue;
        const assignees = team.members;
        const times = sortedCreatedAts(rngTask, n, team.createdMs + HOUR, END_MS, spec.tieChance);
        const nEpics = n >= 5 ? Math.max(1, Math.round(n * 0.08)) : 0;
        // Epics are the first (oldest) tasks of the team, so children are created after their epic.
        const epics: string[] = [];
        for (let i = 0; i < n; i++) {
          const isEpic = i < nEpics;
          const type = isEpic ? 'epic' : rngTask.weighted<'story' | 'bug' | 'task'>([['story', 50], ['bug', 25], ['task', 25]]);
          const status = rngTask.weighted<'backlog' | 'active' | 'paused' | 'done'>([['backlog', 20], ['active', 22], ['paused', 6], ['done', 52]]);
          const a = assignees.length > 0 && rngTask.chance(isEpic ? 0.6 : 0.85) ? rngTask.pick(assignees) : null;
          const id = rngTask.id('task_');
          if (isEpic) epics.push(id);
          await w.add({
            id,
            team_id: team.id,
            organization_id: team.org.id,
            title: taskTitle(rngTask, type),
            type,
            status,
            assignee_id: a ? a.member.user.id : null,
            parent_id: !isEpic && epics.length > 0 && rngTask.chance(0.45) ? rngTask.pick(epics) : null,
            story_points: isEpic || rngTask.chance(0.15) ? null : rngTask.pick([1, 2, 3, 5, 8, 13]),
            created_at: new Date(times[i]),
            completed_at: status === 'done' ? new Date(laterMs(rngTask, times[i], HOUR, 45 * DAY_MS)) : null,
          });
        }
      }
    });
  }
}

/** Interactions, membership by membership. */
async function seedInteractions({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
  const rngInt = root.fork('interactions');
  const memberships: MemberState[] = orgs.flatMap((o) => o.members);
  const intShares = allocate(spec.interactions, memberships.map(() => 0.2 + rngInt.float()));
  {
    await ins.stream('interactions', async (w) => {
      for (const f of FIXTURE_INTERACTIONS) await w.add({ ...f, created_at: toDate(f.created_at) });
      for (let mi = 0; mi < memberships.length; mi++) {
        const n = intShares[mi];
        if (n === 0) continue;
        const m = memberships[mi];
        const org = m.org;
        const times = sortedCreatedAts(rngInt, n, m.joinedMs, END_MS, spec.tieChance);
        for (let i = 0; i < n; i++) {
          const type = rngInt.weighted<'code_review' | 'communication' | 'task_assignment' | 'meeting'>([
            ['code_review', 30],
            ['communication', 35],
            ['task_assignment', 15],
            ['meeting', 20],
          ]);
          const category: AppCategory =
            type === 'code_review' ? 'git' : type === 'communication' ? 'chat' : type === 'task_assignment' ? 'issues' : 'calendar';
          const sources = org.sources[category];
          const source = sources.length > 0 ? rngInt.pick(sources) : DEFAULT_SOURCE[category];
          // Only teams the user had joined by then.
          const joined = m.teams.filter((t) => t.joinedMs <= times[i]);
          const team = joined.length > 0 && rngInt.chance(0.6) ? rngInt.pick(joined).team : null;
          let counterpart: GenUser | null = null;
          if (!rngInt.chance(type === 'meeting' ? 0.25 : 0.05)) {
            const pool = team ? team.members.map((x) => x.member) : org.members;
            if (pool.length > 1) {
              for (let tries = 0; tries < 4 && counterpart === null; tries++) {
                const c = rngInt.pick(pool);
                if (c !== m) counterpart = c.user;
              }
            }
          }
          await w.add({
            id: rngInt.id('int_'),
            organization_id: org.id,
            type,
            source,
            user_id: m.user.id,
            counterpart_id: counterpart ? counterpart.id : null,
            team_id: team ? team.id : null,
            created_at: new Date(times[i]),
          });
        }
      }
    });
  }
}

/** Dashboard views: organization, team and private ones. */
async function seedDashboardViews({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
  const rngView = root.fork('dashboard_views');
  const viewRows: Row[] = FIXTURE_DASHBOARD_VIEWS.map((v) => ({ ...v, created_at: toDate(v.created_at) }));
  for (const org of orgs) {
    if (org.members.length === 0) continue;
    let previousMs = -1;
    const at = (fromMs: number) => {
      const t = previousMs >= fromMs && rngView.chance(spec.tieChance * 3) ? previousMs : createdAt(rngView, fromMs, END_MS);
      previousMs = t;
      return new Date(t);
    };
    const leads = org.members.filter((m) => m.role !== 'collaborator');
    for (let i = 0; i < spec.orgViewsPerOrg; i++) {
      const owner = rngView.pick(leads.length > 0 ? leads : org.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `${org.name} ${catalogName(type)} ${rngView.pick(VIEW_SUFFIXES)}`,
        type,
        visibility: 'organization',
        organization_id: org.id,
        team_id: null,
        owner_id: owner.user.id,
        created_at: at(Math.max(owner.joinedMs, org.createdMs)),
      });
    }
    for (const team of org.teams) {
      if (team.members.length === 0 || !rngView.chance(spec.teamViewChance)) continue;
      const managers = team.members.filter((x) => x.role === 'manager');
      const owner = rngView.pick(managers.length > 0 && rngView.chance(0.7) ? managers : team.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `${team.name} ${catalogName(type)}`,
        type,
        visibility: 'team',
        organization_id: org.id,
        team_id: team.id,
        owner_id: owner.member.user.id,
        created_at: at(owner.joinedMs),
      });
    }
    const privateCount = Math.max(1, Math.round(org.members.length * spec.privateViewsPerMember));
    for (let i = 0; i < privateCount; i++) {
      const owner = rngView.pick(org.members);
      const type = rngView.pick(DASHBOARD_CATALOG_KEYS);
      viewRows.push({
        id: rngView.id('view_'),
        name: `My ${catalogName(type).toLowerCase()} ${rngView.pick(VIEW_SUFFIXES)}`,
        type,
        visibility: 'private',
        organization_id: org.id,
        team_id: null,
        owner_id: owner.user.id,
        created_at: at(owner.joinedMs),
      });
    }
  }
  await ins.insertAll('dashboard_views', viewRows);
}

// ---------------------------------------------------------------------------------------------------
// Text helpers

const DEFAULT_SOURCE: Record<AppCategory, string> = { git: 'github', chat: 'slack', issues: 'jira', calendar: 'google_calendar' };

function rank(org: OrgState, category: AppCategory): number {
  if (category === 'chat' && org.sources.chat.length === 0) return 0;
  if (category === 'issues' && org.sources.issues.length === 0) return 0;
  return 1;
}

function catalogName(key: string): string {
  return DASHBOARD_CATALOG.find((e) => e.key === key)?.name ?? key;
}

function externalUserId(rng: Random, provider: string, user: GenUser, org: OrgState): string {
  switch (provider) {
    case 'slack':
      return 'U' + rng.chars(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    case 'msteams': {
      const h = rng.hex(32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    case 'jira':
      return '5b' + rng.hex(22);
    case 'github':
    case 'gitlab':
    case 'bitbucket':
      return String(rng.int(100_000, 99_999_999));
    case 'google_calendar':
    case 'outlook':
      return `${slugify(user.first)}.${slugify(user.last)}@${org.slug}.test`;
    default:
      return rng.hex(16);
  }
}

function gitUsername(rng: Random, user: GenUser): string {
  const first = slugify(user.first);
  const last = slugify(user.last);
  const base = rng.pick([`${first}${last}`, `${first}-${last}`, `${first[0]}${last}`, `${first}${last[0]}`]);
  return rng.chance(0.5) ? `${base}${rng.int(1, 999)}` : base;
}

function commitMessage(rng: Random): string {
  const r = rng.float();
  if (r < 0.06) return `Merge branch '${rng.pick(['main', 'develop', 'release'])}' into ${rng.pick(['feature', 'fix', 'chore'])}/${slugify(rng.pick(OBJECTS))}`;
  if (r < 0.1) return `Bump ${rng.pick(['express', 'lodash', 'react', 'typescript', 'eslint', 'jest', 'axios', 'zod'])} from ${rng.int(1, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)} to ${rng.int(1, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)}`;
  const msg = `${rng.pick(VERBS)} ${rng.pick(OBJECTS)}`;
  return rng.chance(0.3) ? `${msg} (#${rng.int(1, 4000)})` : msg;
}

/** Claude Code's co-author trailer, as it ends the commits it writes. */
const CLAUDE_CODE_TRAILER = '\n\nCo-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>';

/** Most pull requests are small; a few are large. */
function pullRequestSize(rng: Random): { additions: number; deletions: number } {
  const additions = Math.round(5 + 2000 * rng.float() ** 3);
  return { additions, deletions: Math.round(additions * rng.float() * 0.6) };
}

function prTitle(rng: Random): string {
  const prefix = rng.chance(0.3) ? `${rng.pick(['feat', 'fix', 'chore', 'refactor', 'docs', 'perf'])}: ` : '';
  return `${prefix}${rng.pick(VERBS)} ${rng.pick(OBJECTS)}`;
}

function taskTitle(rng: Random, type: 'story' | 'bug' | 'task' | 'epic'): string {
  const object = rng.pick(OBJECTS);
  switch (type) {
    case 'epic':
      return rng.pick(EPIC_THEMES);
    case 'bug':
      return `${object[0].toUpperCase()}${object.slice(1)} ${rng.pick(BUG_SYMPTOMS)}`;
    case 'story':
      return `As a user I can use the new ${object}`;
    default:
      return `${rng.pick(VERBS)} ${object}`;
  }
}
