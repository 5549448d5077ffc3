import { createHash } from 'node:crypto';
import { DAY_MS, type Random } from './random';
import type { DemoUsageRollups } from './usageRollups';

/**
 * Demo telemetry (docs/telemetry.md, docs/metrics.md#ai-review-and-cost-figures): Acme's members using Claude Code (a few Gemini CLI) at the volumes a
 * developer produces in a working day, so `ai-usage` has something believable to say; plus some custom
 * workflow events of a release bot. The daily rollups cover a year of adoption; raw points exist for the last
 * week only (the rollups are what the metrics read), each day's points adding up to that day's rollups. The
 * organization's sums and the active days are kept with the vendors' (usageRollups.ts) and inserted with theirs.
 */
type Row = Record<string, unknown>;

export interface TelemetryInserter {
  insertAll(table: string, rows: Iterable<Row>): Promise<void>;
}

export interface TelemetryMember {
  userId: string;
  joinedMs: number;
}

export interface TelemetrySpec {
  /** Share of the organization's generated members who use Claude Code, once the rollout reached them. */
  claudeShare: number;
  /** Share who use Gemini CLI instead. */
  geminiShare: number;
}

const ROLLOUT_DAYS = 180;
const RAW_POINT_DAYS = 7;

/** USD per million tokens: input, output, cache read, cache write (list prices). */
const MODELS = {
  'claude-sonnet-4-5': [3, 15, 0.3, 3.75],
  'claude-opus-4-1': [15, 75, 1.5, 18.75],
  'claude-haiku-4-5': [1, 5, 0.1, 1.25],
  'gemini-2.5-pro': [1.25, 10, 0.31, 0],
} as const;
type Model = keyof typeof MODELS;

const MEASURES = [
  'sessions', 'prompts', 'api_requests', 'active_seconds_user', 'active_seconds_cli', 'input_tokens', 'output_tokens',
  'cache_read_tokens', 'cache_creation_tokens', 'cost_usd', 'lines_added', 'lines_removed', 'commits', 'pull_requests',
  'edits_accepted', 'edits_rejected',
] as const;
type Day = Partial<Record<(typeof MEASURES)[number], number>>;

/** One member's day with a tool: what it reports without a model, and its model's tokens and cost. */
function workday(rng: Random, tool: 'claude_code' | 'gemini_cli', model: Model): { plain: Day; modelled: Day } {
  const sessions = 1 + Math.floor(rng.float() * rng.float() * 5);
  const prompts = sessions * rng.int(4, 22);
  const apiRequests = prompts * rng.int(3, 9);
  const [pin, pout, pread, pwrite] = MODELS[model];
  const tokens = {
    input_tokens: apiRequests * rng.int(200, 1_500),
    output_tokens: apiRequests * rng.int(120, 700),
    cache_read_tokens: tool === 'claude_code' ? apiRequests * rng.int(8_000, 40_000) : apiRequests * rng.int(0, 4_000),
    cache_creation_tokens: tool === 'claude_code' ? apiRequests * rng.int(500, 4_000) : 0,
  };
  const cost = (tokens.input_tokens * pin + tokens.output_tokens * pout + tokens.cache_read_tokens * pread + tokens.cache_creation_tokens * pwrite) / 1e6;
  const added = sessions * rng.int(10, 320);
  const proposals = rng.int(2, 40);
  const rejected = Math.round(proposals * rng.float() * 0.2);
  const userSeconds = sessions * rng.int(300, 2_700);
  const plain: Day = {
    sessions,
    prompts,
    lines_added: added,
    lines_removed: Math.round(added * rng.float() * 0.5),
    commits: rng.chance(0.6) ? rng.int(1, 3) : 0,
    pull_requests: rng.chance(0.25) ? 1 : 0,
  };
  if (tool === 'claude_code') {
    Object.assign(plain, {
      api_requests: apiRequests,
      active_seconds_user: userSeconds,
      active_seconds_cli: Math.round(userSeconds * (0.4 + rng.float() * 1.6)),
      edits_accepted: proposals - rejected,
      edits_rejected: rejected,
    });
  } else {
    Object.assign(plain, { api_requests: apiRequests, commits: 0, pull_requests: 0 });
  }
  return { plain, modelled: { ...tokens, cost_usd: Math.round(cost * 10_000) / 10_000 } };
}

interface Adopter {
  userId: string;
  tool: 'claude_code' | 'gemini_cli';
  /** Their first day with the tool, and how many workdays of five they use it on. */
  fromMs: number;
  daysPerWeek: number;
  model: Model;
}

function adopters(rng: Random, spec: TelemetrySpec, members: TelemetryMember[], startMs: number): Adopter[] {
  return members.flatMap((m): Adopter[] => {
    const roll = rng.float();
    const tool = roll < spec.claudeShare ? 'claude_code' : roll < spec.claudeShare + spec.geminiShare ? 'gemini_cli' : undefined;
    if (!tool) return [];
    const fromMs = Math.max(m.joinedMs, startMs + Math.floor(rng.float() * ROLLOUT_DAYS) * DAY_MS);
    const model: Model = tool === 'gemini_cli' ? 'gemini-2.5-pro' : rng.chance(0.75) ? 'claude-sonnet-4-5' : rng.chance(0.7) ? 'claude-opus-4-1' : 'claude-haiku-4-5';
    // Light, moderate and heavy users, about a third each.
    return [{ userId: m.userId, tool, fromMs, daysPerWeek: rng.pick([0.6, 2, 4.2]), model }];
  });
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const seriesKey = (...parts: string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

/** Each metric a day's figures came as, Claude Code's names and attributes, for the raw points. */
const POINTS: [string, Record<string, string>, (typeof MEASURES)[number], boolean][] = [
  ['session.count', {}, 'sessions', false],
  ['token.usage', { type: 'input' }, 'input_tokens', true],
  ['token.usage', { type: 'output' }, 'output_tokens', true],
  ['token.usage', { type: 'cacheRead' }, 'cache_read_tokens', true],
  ['token.usage', { type: 'cacheCreation' }, 'cache_creation_tokens', true],
  ['cost.usage', {}, 'cost_usd', true],
  ['lines_of_code.count', { type: 'added' }, 'lines_added', false],
  ['lines_of_code.count', { type: 'removed' }, 'lines_removed', false],
  ['commit.count', {}, 'commits', false],
  ['pull_request.count', {}, 'pull_requests', false],
];

export async function seedTelemetry(ins: TelemetryInserter, rng: Random, spec: TelemetrySpec, usage: DemoUsageRollups, organizationId: string, members: TelemetryMember[], endMs: number): Promise<void> {
  const startMs = endMs - 365 * DAY_MS;
  const users = adopters(rng, spec, members, startMs);
  const points: Row[] = [];
  const rollup = (day: string, userKey: string, tool: string, model: string, figures: Day): Row => usage.member(day, userKey, tool, model, 'otlp', figures);
  // Streamed: at the large scale a year of rollups would not fit in memory at once; the week of points does.
  function* rollups(): Generator<Row> {
    for (let dayMs = startMs; dayMs < endMs; dayMs += DAY_MS) {
      const weekday = new Date(dayMs).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      const day = dayOf(dayMs);
      for (const u of users) {
        if (dayMs < u.fromMs || !rng.chance(u.daysPerWeek / 5)) continue;
        const { plain, modelled } = workday(rng, u.tool, u.model);
        yield rollup(day, u.userId, u.tool, '', plain);
        yield rollup(day, u.userId, u.tool, u.model, modelled);
        if (u.tool === 'claude_code' && endMs - dayMs <= RAW_POINT_DAYS * DAY_MS) points.push(...pointsOf(organizationId, u, dayMs, { ...plain, ...modelled }));
      }
      // Laptops whose e-mail matches no member (contractors): counted apart.
      if (rng.chance(0.4)) yield rollup(day, '', 'claude_code', 'claude-sonnet-4-5', { sessions: rng.int(1, 3), cost_usd: Math.round(rng.float() * 800) / 100 });
    }
  }
  await ins.insertAll('ai_usage_days', rollups());
  await ins.insertAll('telemetry_points', points);
  await ins.insertAll('telemetry_events', releaseBotEvents(rng, organizationId, endMs));
}

function pointsOf(organizationId: string, u: Adopter, dayMs: number, figures: Day): Row[] {
  const session = `demo-${u.userId}-${dayOf(dayMs)}`;
  return POINTS.filter(([, , measure]) => (figures[measure] ?? 0) > 0).map(([metric, extra, measure, modelled]) => {
    const attributes = { 'session.id': session, ...extra, ...(modelled ? { model: u.model } : {}) };
    return {
      organization_id: organizationId,
      series_key: seriesKey(organizationId, metric, session, JSON.stringify(attributes)),
      start_at: new Date(dayMs + 9 * 3_600_000),
      end_at: new Date(dayMs + 18 * 3_600_000),
      name: `claude_code.${metric}`,
      tool: 'claude_code',
      user_id: u.userId,
      value: figures[measure],
      attributes: JSON.stringify(attributes),
    };
  });
}

/** A release bot's custom workflow events over the last quarter: approvals, rollbacks, incident acknowledgements. */
function* releaseBotEvents(rng: Random, organizationId: string, endMs: number): Generator<Row> {
  const NAMES = ['deploy.approved', 'deploy.approved', 'deploy.approved', 'deploy.rolled_back', 'incident.acknowledged'];
  for (let i = 0; i < 180; i++) {
    const name = rng.pick(NAMES);
    const at = endMs - rng.int(1, 90 * 24 * 60) * 60_000;
    const attributes = { environment: rng.pick(['production', 'staging']), change: `CHG-${rng.int(1000, 9999)}`, pipeline: rng.pick(['api', 'web', 'mobile']) };
    yield {
      id: rng.id('tev_'),
      organization_id: organizationId,
      event_key: seriesKey('demo-event', String(i)),
      name,
      source: 'release-bot',
      user_id: null,
      session_id: null,
      attributes: JSON.stringify(attributes),
      created_at: new Date(at),
    };
  }
}
