/**
 * The AI vendors' pull row of `npm run bench` (docs/performance.md#benchmark): a year of GitHub Copilot's daily users
 * reports for a large organization, served by a local fake of GitHub's usage metrics API (each line GitHub's
 * documented row, test/support/peers/copilot/users-1-day-row.json, rewritten in login, day and counts), pulled by
 * `npm run import -- ai` as an operator would backfill it; against a floor that writes the same rows with mysql2 and
 * nothing else (the vendor's rows and the rollups' vendor rows, a transaction a day), worked out before it starts
 * with the service's own reading of the reports.
 *
 * It runs in an organization of its own, made for it and removed after: the large organization's members with a
 * GitHub login (at most SEATS), their memberships and logins copied; so the pull marks no commit of the benchmark's
 * data and leaves its figures as they were.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { format } from 'mysql2';
import type { Connection } from 'mysql2/promise';
import { createSequelize } from '../../../db/connection';
import { initModels } from '../../../db/models';
import { MONTH_COLUMNS, monthColumn } from '../../../db/rollups/aiActiveYears';
import { ChangeRunner } from '../../../src/persistence/changes/change';
import { newId } from '../../../src/persistence/changes/ids';
import { SecretBox } from '../../../src/secrets/secretBox';
import { AppWriter } from '../../../src/services/apps/apps';
import { copilotDay } from '../../../src/integrations/copilot/puller';
import { VENDOR_MEASURES, VendorAccountDay } from '../../../src/services/aiVendors/vendorDay';
import { defaultHttp } from '../../../src/outbound/providerHttp';
import { loadConfig } from '../../../src/config';
import { outboundPolicy } from '../../../src/outbound/outboundFetch';
import type { IngestRow } from '../report';
import type { PostMeasurement } from '../load';
import { run } from '../processes';
import { providerCatalog } from '../../../src/integrations/catalog';

export const COPILOT_ROW_PATH = 'npm run import -- ai (GitHub Copilot, a year)';
/** A large enterprise's Copilot seats. */
const SEATS = 2_000;
const DAYS = 365;
const ROOT = path.resolve(__dirname, '../../..');
const DOCUMENTED_ROW = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/support/peers/copilot/users-1-day-row.json'), 'utf8')) as Record<string, unknown>;

interface Seat {
  userId: string;
  login: string;
}

interface Plan {
  organizationId: string;
  gitAppId: string;
  appId: string;
  days: string[];
  /** The floor's statements, a day's in one transaction. */
  statements: string[][];
  rows: number;
}

/** The year ending yesterday (UTC). */
function year(): string[] {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  return Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Whether a seat used Copilot that day (most on workdays, a few at weekends), from a hash: the same every run. */
function activeOn(seat: number, d: number, day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  const h = (seat * 2_654_435_761 + d * 40_503) >>> 0;
  return h % 100 < (weekday === 0 || weekday === 6 ? 8 : 55);
}

function reportLine(seat: Seat, i: number, day: string, d: number): string {
  const scale = 1 + ((i + d) % 7);
  const cli = DOCUMENTED_ROW.totals_by_cli as Record<string, any>;
  return JSON.stringify({
    ...DOCUMENTED_ROW,
    day,
    user_login: seat.login,
    code_generation_activity_count: 3 * scale,
    code_acceptance_activity_count: scale,
    loc_suggested_to_add_sum: 10 * scale,
    loc_added_sum: 8 * scale,
    totals_by_cli: { ...cli, session_count: (i + d) % 3, token_usage: { ...cli.token_usage, prompt_tokens_sum: 3_800 * scale, output_tokens_sum: 5_000 * scale } },
  });
}

/** GitHub's usage metrics API for one organization: a users report per day, its NDJSON one file away. */
function fakeGitHub(seats: Seat[], days: string[]): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const report = /\/copilot\/metrics\/reports\/users-1-day$/.test(url.pathname);
    const file = /^\/files\/(\d{4}-\d{2}-\d{2})\.ndjson$/.exec(url.pathname);
    const d = days.indexOf(report ? (url.searchParams.get('day') ?? '') : (file?.[1] ?? ''));
    if (d < 0) return void res.writeHead(404).end();
    if (report) {
      const base = `http://${req.headers.host}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ download_links: [`${base}/files/${days[d]}.ndjson`], report_day: days[d] }));
      return;
    }
    const lines = seats.flatMap((seat, i) => (activeOn(i, d, days[d]) ? [reportLine(seat, i, days[d], d)] : []));
    res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines.join('\n'));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((done) => server.close(() => done())) })));
}

/** The organization of the row: the large organization's members with a GitHub login there, copied. */
async function benchOrganization(db: Connection, from: string): Promise<{ organizationId: string; gitAppId: string; seats: Seat[] }> {
  const [rows] = await db.query(
    `SELECT ug.user_id, LOWER(ug.username) AS login FROM git_apps g JOIN user_git_apps ug ON ug.git_app_id = g.id
      JOIN organization_memberships m ON m.organization_id = g.organization_id AND m.user_id = ug.user_id AND m.status = 'active'
      WHERE g.organization_id = ? AND g.provider = 'github' ORDER BY ug.user_id LIMIT ?`,
    [from, SEATS * 2],
  );
  // One login per seat and one seat per member, as a report names them.
  const [logins, users] = [new Set<string>(), new Set<string>()];
  const seats: Seat[] = [];
  for (const r of rows as { user_id: string; login: string }[]) {
    if (logins.has(r.login) || users.has(r.user_id) || seats.length === SEATS) continue;
    logins.add(r.login);
    users.add(r.user_id);
    seats.push({ userId: r.user_id, login: r.login });
  }
  const organizationId = newId('org');
  const gitAppId = newId('gapp');
  const now = new Date();
  await db.query('INSERT INTO organizations SET ?', [{ id: organizationId, name: 'npm run bench (Copilot)', created_at: now }]);
  await db.query(
    `INSERT INTO organization_memberships (organization_id, user_id, role, created_at, user_name, user_email, user_created_at, status)
      SELECT ?, user_id, 'collaborator', created_at, user_name, user_email, user_created_at, 'active' FROM organization_memberships WHERE organization_id = ? AND user_id IN (?)`,
    [organizationId, from, seats.map((s) => s.userId)],
  );
  await db.query('INSERT INTO git_apps SET ?', [{ id: gitAppId, organization_id: organizationId, provider: 'github', name: 'GitHub (bench)', is_active: 1, created_at: now }]);
  await db.query('INSERT INTO user_git_apps (user_id, git_app_id, username, created_at) VALUES ?', [seats.map((s) => [s.userId, gitAppId, s.login, now])]);
  return { organizationId, gitAppId, seats };
}

/** A day's rows as the writer stores them (vendorUsage.ts, aiUsage/vendorRollups.ts), for an organization with no OTLP. */
function dayStatements(plan: { organizationId: string; appId: string }, day: string, accounts: VendorAccountDay[], memberOf: Map<string, string>): string[] {
  const measures = (a: VendorAccountDay) => VENDOR_MEASURES.map((m) => a.measures[m] ?? 0);
  const vendorRows = accounts.map((a) => [plan.appId, day, a.account.toLowerCase(), plan.organizationId, 'copilot', memberOf.get(a.account.toLowerCase()) ?? '', 1, 1, ...measures(a)]);
  const members = vendorRows.filter((r) => r[5] !== '');
  const sum = (rows: (string | number)[][]) => VENDOR_MEASURES.map((_, k) => rows.reduce((n, r) => n + Number(r[8 + k]), 0));
  const orgRows = [1, 0].map((attributed) => [attributed, vendorRows.filter((r) => (r[5] !== '') === (attributed === 1))]).filter(([, rows]) => (rows as unknown[]).length);
  const bit = 2 ** (Number(day.slice(8, 10)) - 1);
  const [year, column] = [Number(day.slice(0, 4)), monthColumn(day.slice(0, 7))];
  const cols = VENDOR_MEASURES.join(', ');
  return [
    format('DELETE FROM ai_vendor_days WHERE app_id = ? AND day = ?', [plan.appId, day]),
    format(`INSERT INTO ai_vendor_days (app_id, day, account, organization_id, tool, user_key, active, counted, ${cols}) VALUES ?`, [vendorRows]),
    format(`INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, source, ${cols}) VALUES ?`, [members.map((r) => [plan.organizationId, day, r[5], 'copilot', '', 'vendor', ...r.slice(8)])]),
    format(`INSERT INTO ai_usage_org_days (organization_id, day, tool, model, attributed, source, ${cols}) VALUES ?`, [
      orgRows.map(([attributed, rows]) => [plan.organizationId, day, 'copilot', '', attributed, 'vendor', ...sum(rows as (string | number)[][])]),
    ]),
    format(`INSERT INTO ai_active_years (organization_id, tool, user_key, year, ${column}) VALUES ? ON DUPLICATE KEY UPDATE ${column} = ${column} | VALUES(${column})`, [
      members.flatMap((r) => [[plan.organizationId, 'copilot', r[5], year, bit], [plan.organizationId, '', r[5], year, bit]]),
    ]),
  ];
}

async function stored(db: Connection, plan: Plan): Promise<string> {
  const [[v]] = (await db.query('SELECT COUNT(*) AS n, SUM(suggestions_shown) AS shown FROM ai_vendor_days WHERE app_id = ?', [plan.appId])) as unknown as [{ n: number; shown: number }[]];
  const [[u]] = (await db.query("SELECT COUNT(*) AS n, SUM(lines_added) AS added FROM ai_usage_days WHERE organization_id = ? AND source = 'vendor'", [plan.organizationId])) as unknown as [{ n: number; added: number }[]];
  const [[o]] = (await db.query('SELECT COUNT(*) AS n, SUM(sessions) AS sessions FROM ai_usage_org_days WHERE organization_id = ?', [plan.organizationId])) as unknown as [{ n: number; sessions: number }[]];
  const [[m]] = (await db.query(`SELECT COUNT(*) AS n, SUM(${MONTH_COLUMNS.join(' + ')}) AS days FROM ai_active_years WHERE organization_id = ?`, [plan.organizationId])) as unknown as [
    { n: number; days: number }[],
  ];
  return JSON.stringify({ vendor_rows: [v.n, Number(v.shown)], member_days: [u.n, Number(u.added)], organization_days: [o.n, Number(o.sessions)], years: [m.n, Number(m.days)] });
}

async function clean(db: Connection, plan: Plan): Promise<void> {
  await db.query('DELETE FROM ai_vendor_days WHERE app_id = ?', [plan.appId]);
  for (const table of ['ai_usage_days', 'ai_usage_org_days', 'ai_active_years']) await db.query(`DELETE FROM ${table} WHERE organization_id = ?`, [plan.organizationId]);
}

const once = (reports: number, seconds: number): PostMeasurement => ({ rps: reports / seconds, p50: 0, p99: 0, non2xx: 0, errors: 0, seconds, sent: reports, ok: reports, warmUp: 0, exhausted: false, statuses: {} });

/**
 * The row: the floor's year, then the API's (the import CLI of the measured build), each from an empty start, the
 * rows each stored compared, and everything removed after, the organization with it, whatever happens.
 */
export async function measureCopilotPull(c: { url: string; db: Connection; organizationId: string; secretsKey: Buffer; importMain: string; log: (s: string) => void; differences: string[]; notes: string[] }): Promise<IngestRow> {
  const { db } = c;
  const days = year();
  const org = await benchOrganization(db, c.organizationId);
  const github = await fakeGitHub(org.seats, days);
  const plan: Plan = { ...org, appId: '', days, statements: [], rows: 0 };
  try {
    const sequelize = createSequelize({ url: c.url, sqlitePath: '' });
    try {
      initModels(sequelize);
      const apps = new AppWriter(ChangeRunner.for(sequelize), new SecretBox(c.secretsKey), providerCatalog());
      const { app } = await apps.create(org.organizationId, 'copilot', { name: 'npm run bench', vendor: { credential: 'github_pat_bench_0123456789', account: { kind: 'organization', slug: 'bench' }, baseUrl: github.base } });
      plan.appId = app.id;
    } finally {
      await sequelize.close();
    }
    const memberOf = new Map(org.seats.map((s) => [s.login, s.userId]));
    const source = { appId: plan.appId, organizationId: org.organizationId, vendor: 'copilot' as const, credential: 'unused', accountKind: 'organization' as const, account: 'bench', baseUrl: github.base };
    const started = Date.now();
    // The fake answers on loopback over plain http: the operator's allowance, as the import below runs with it.
    const http = defaultHttp(outboundPolicy(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' })));
    for (const day of days) {
      const accounts = (await copilotDay(source, day, http)) ?? [];
      plan.rows += accounts.length;
      plan.statements.push(dayStatements(plan, day, accounts, memberOf));
    }
    c.log(`copilot: ${days.length} reports of ${org.seats.length} seats (${plan.rows} user days) and the floor's rows prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const floorStarted = process.hrtime.bigint();
    for (const statements of plan.statements) {
      await db.beginTransaction();
      for (const sql of statements) await db.query(sql);
      await db.commit();
    }
    const floorSeconds = Number(process.hrtime.bigint() - floorStarted) / 1e9;
    const floorStored = await stored(db, plan);
    await clean(db, plan);

    const apiStarted = process.hrtime.bigint();
    const out = await run(process.execPath, [c.importMain, 'ai', '--app', plan.appId, '--since', days[0], '--until', days[days.length - 1], '--json'], {
      env: { DATABASE_URL: c.url, SECRETS_KEY: c.secretsKey.toString('hex'), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: '1' },
      capture: true,
    });
    const apiSeconds = Number(process.hrtime.bigint() - apiStarted) / 1e9;
    const apiStored = await stored(db, plan);
    const summary = out.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '';
    if (apiStored !== floorStored) c.differences.push(`\`${COPILOT_ROW_PATH}\`: the API stored ${apiStored}, the floor ${floorStored}`);
    c.notes.push(
      `\`${COPILOT_ROW_PATH}\`: ${days.length} daily users reports of ${org.seats.length} seats (${plan.rows} user days, GitHub's documented row) from a local fake, ` +
        `pulled by the import CLI (a process of its own, start-up included) and written by the floor a day a transaction; per report, items/s are reports/s. The CLI said: ${summary.slice(0, 300)}`,
    );
    c.log(`copilot: floor ${(days.length / floorSeconds).toFixed(1)}, API ${(days.length / apiSeconds).toFixed(1)} reports/s`);
    return { path: COPILOT_ROW_PATH, items: 1, itemName: 'report', encoding: 'NDJSON', bodyKb: 0, floor: once(days.length, floorSeconds), api: once(days.length, apiSeconds) };
  } finally {
    await github.close();
    if (plan.appId) {
      await clean(db, plan);
      await db.query('DELETE FROM ai_vendor_sources WHERE app_id = ?', [plan.appId]);
      await db.query('DELETE FROM apps WHERE id = ?', [plan.appId]);
    }
    await db.query('DELETE FROM user_git_apps WHERE git_app_id = ?', [org.gitAppId]);
    await db.query('DELETE FROM git_apps WHERE id = ?', [org.gitAppId]);
    await db.query('DELETE FROM organization_memberships WHERE organization_id = ?', [org.organizationId]);
    await db.query('DELETE FROM organizations WHERE id = ?', [org.organizationId]);
  }
}
