import { DEMO } from '../fixtures/ids';
import { DAY_MS, Random } from '../random';
import { OrgState } from '../state';
import { slugify } from '../text';
import { DemoUsageRollups, USAGE_MEASURES, UsageFigures } from '../usageRollups';

type Row = Record<string, unknown>;

/** Of a team's members, the share with a Copilot seat: the teams differ, so ai-impact's adoption tiers do. */
const SEAT_SHARES = [0.9, 0.65, 0.35, 0.1];
/** Seats of members in no team. */
const TEAMLESS_SHARE = 0.5;
/** Logins no member has (contractors on the GitHub organization): counted for the organization only. */
const OUTSIDE_LOGINS = ['octo-contractor', 'build-bot-gh', 'agency-dev-7'];

interface Seat {
  /** Lower-cased, as a pull stores it. */
  login: string;
  /** The member whose login it is on Acme's GitHub, or '' when no member's GitHub account has it. */
  userKey: string;
  /** How many workdays of five they use Copilot on. */
  daysPerWeek: number;
}

export interface CopilotInserter {
  insertAll(table: string, rows: Iterable<Row>): Promise<void>;
}

/**
 * Acme's GitHub Copilot app (docs/ai-vendors.md): a year of the daily reports GitHub's usage metrics API serves,
 * stored as a pull stores them (`ai_vendor_days`, every active row counted) with the vendor rows of the rollups
 * `ai-usage` reads. Members are named by their GitHub login on Acme's GitHub apps; a member bound to none is an
 * account no member has, as in a real organization whose people never linked their GitHub account. The app has no
 * credential: the seed cannot seal one for a service whose key it does not know; `npm run apps -- set-secret`
 * stores one, and the daily pull continues from the last day held. Its own random stream, so every other step's
 * data is the same with or without it.
 */
export async function seedCopilot(ins: CopilotInserter, usage: DemoUsageRollups, acme: OrgState, moveMs: number, endMs: number): Promise<void> {
  const rng = new Random('demo:copilot');
  const app = DEMO.apps.acmeCopilot;
  const startMs = endMs - 365 * DAY_MS;
  const seats = seatsOf(rng, acme);
  await ins.insertAll('apps', [{ id: app, organization_id: acme.id, provider: 'copilot', category: 'ai', name: 'GitHub Copilot', is_active: true, created_at: new Date(startMs - DAY_MS) }]);
  const lastDay = new Date(endMs - DAY_MS).toISOString().slice(0, 10);
  await ins.insertAll('ai_vendor_sources', [
    {
      app_id: app,
      organization_id: acme.id,
      credential: null,
      account_kind: 'organization',
      account: acme.slug,
      base_url: null,
      pulled_at: new Date(endMs - DAY_MS + 6 * 3_600_000),
      pulled_through: lastDay,
      pull_result: 'Demo data: a year of reports is held. Store a credential (npm run apps -- set-secret) to pull GitHub’s.',
      failing: false,
      lease_owner: null,
      lease_until: null,
      updated_at: new Date(endMs - DAY_MS + 6 * 3_600_000),
    },
  ]);
  // Twice over the same stream: the reports, then the rollups made from them (a year of rows is never held at once).
  function* reportDays(): Generator<{ day: string; seat: Seat; figures: UsageFigures }> {
    const days = new Random('demo:copilot:days');
    for (let dayMs = startMs; dayMs < endMs; dayMs += DAY_MS) {
      const weekday = new Date(dayMs).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      const day = new Date(dayMs).toISOString().slice(0, 10);
      for (const seat of seats) if (dayMs >= seat.joinedMs + moveMs && days.chance(seat.daysPerWeek / 5)) yield { day, seat, figures: workday(days) };
    }
  }
  await ins.insertAll('ai_vendor_days', (function* () {
    for (const { day, seat, figures } of reportDays()) yield vendorRow(app, acme.id, day, seat, figures);
  })());
  await ins.insertAll('ai_usage_days', (function* () {
    for (const { day, seat, figures } of reportDays()) {
      if (seat.userKey) yield usage.member(day, seat.userKey, 'copilot', '', 'vendor', figures);
      else usage.unmatched(day, 'copilot', figures);
    }
  })());
}

/** Members with a seat, by their team's share; their login on Acme's GitHub apps, or one no member's account has. */
function seatsOf(rng: Random, acme: OrgState): (Seat & { joinedMs: number })[] {
  const shareOf = new Map(acme.teams.map((t, i) => [t.id, SEAT_SHARES[i % SEAT_SHARES.length]]));
  const githubLogin = (userId: string) => acme.gitApps.filter((g) => g.provider === 'github').map((g) => g.logins.get(userId)).find((l) => l !== undefined);
  // A login names one account: a second member generated with the same one gets no seat.
  const taken = new Set<string>(OUTSIDE_LOGINS);
  const seats = acme.members.flatMap((m) => {
    const team = m.teams[0]?.team;
    if (!rng.chance(team ? shareOf.get(team.id)! : TEAMLESS_SHARE)) return [];
    const linked = githubLogin(m.user.id);
    const login = (linked ?? `${slugify(m.user.first)}-${slugify(m.user.last)}-gh`).toLowerCase();
    if (taken.has(login)) return [];
    taken.add(login);
    return [{ login, userKey: linked ? m.user.id : '', daysPerWeek: rng.pick([1, 2.5, 4.5]), joinedMs: m.joinedMs }];
  });
  const outsiders = OUTSIDE_LOGINS.map((login) => ({ login, userKey: '', daysPerWeek: 2, joinedMs: -Infinity }));
  return [...seats, ...outsiders];
}

/** A day's figures as GitHub's users report gives them (docs/ai-vendors.md#github-copilot). */
function workday(rng: Random): UsageFigures {
  const shown = rng.int(15, 140);
  const accepted = Math.round(shown * (0.2 + rng.float() * 0.2));
  const chat = rng.int(0, 12);
  const agent = rng.chance(0.4) ? rng.int(1, 6) : 0;
  return {
    prompts: chat + agent,
    suggestions_shown: shown,
    suggestions_accepted: accepted,
    lines_suggested: shown * rng.int(2, 4),
    lines_added: accepted * rng.int(1, 3) + agent * rng.int(5, 40),
    lines_removed: rng.int(0, accepted),
    chat_requests: chat,
    agent_requests: agent,
  };
}

function vendorRow(appId: string, organizationId: string, day: string, seat: Seat, figures: UsageFigures): Row {
  return {
    app_id: appId,
    day,
    account: seat.login,
    organization_id: organizationId,
    tool: 'copilot',
    user_key: seat.userKey,
    active: true,
    counted: true,
    ...Object.fromEntries(USAGE_MEASURES.map((m) => [m, figures[m] ?? 0])),
  };
}
