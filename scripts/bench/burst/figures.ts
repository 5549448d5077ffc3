/**
 * The burst rows of `npm run bench` (docs/performance.md#a-members-burst-of-figures): what one token can make the
 * process do with the figures. N concurrent `GET /v1/metrics/ai-impact` of the caller's organization, each over its
 * own window ending on the data's last day (so none shares another's computation or cached answer), by a
 * collaborator, then the same burst by an admin, each on an API of its own started as `npm start` starts it: a
 * process the burst may end is never one another row needs, and each starts from the same memory.
 *
 * Reported per burst: the answers by status, whether any 200 carried adoption tiers (a collaborator's must not),
 * the 200s' times, the API's RSS at the start and its peak, and whether the process is still up after. A process
 * that dies is a finding of the row, not a failure of the benchmark.
 */
import { performance } from 'node:perf_hooks';
import type { BurstAnswer, BurstRow } from '../report';
import { howExited, rssMb, sampleRss, Server, stopServer } from '../processes';

/** What --filter matches (burst): not the path, so that a filter on the metric's rows does not start two more APIs. */
export const BURST_ROW_PATH = "a member's burst of figures";
const NOTED_AS = `${BURST_ROW_PATH} (\`GET /v1/metrics/ai-impact\`)`;
/** How long a request of the burst is waited for: a computation takes seconds, its wait in line a minute at most. */
const ANSWER_WAIT_MS = 120_000;
/** A process about to die of its heap grows in well under a second: sampled often enough to see its peak. */
const RSS_EVERY_MS = 20;
const DAY_MS = 86_400_000;

export interface Caller {
  /** As the report names the burst, e.g. "collaborator (linus@demo.test)". */
  name: string;
  token: string;
  /** Whether the caller may see the adoption tiers (its organization's admin). */
  admin: boolean;
}

export interface BurstContext {
  organizationId: string;
  /** The data's last day (YYYY-MM-DD): every window ends there. */
  lastDay: string;
  requests: number;
  callers: Caller[];
  /** An API as `npm start` runs it, answering /healthz. */
  startApi: (name: string) => Promise<Server>;
  /** Waits until the database has finished what the last burst left running (a dead process's queries go on). */
  settle: () => Promise<void>;
  log: (s: string) => void;
  notes: string[];
  differences: string[];
}

/** The burst's first days: the year ending on `lastDay`, then each window a day shorter, `count` in all. */
export function burstFromDays(lastDay: string, count: number): string[] {
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(end - (365 - i) * DAY_MS).toISOString().slice(0, 10));
}

const burstPath = (organizationId: string, from: string, to: string) => `/v1/metrics/ai-impact?organization_id=${encodeURIComponent(organizationId)}&from=${from}&to=${to}`;

type Figures = Record<string, unknown>;

/** Why a request got no answer, from what fetch threw. */
function noAnswer(e: unknown): BurstAnswer['status'] {
  if (e instanceof DOMException && e.name === 'TimeoutError') return 'timed out';
  const code = e instanceof Error && e.cause instanceof Error && 'code' in e.cause ? e.cause.code : undefined;
  return code === 'ECONNREFUSED' ? 'refused' : 'cut';
}

async function ask(url: string, token: string): Promise<{ answer: BurstAnswer; figures?: Figures }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(ANSWER_WAIT_MS) });
    // Read whole before it counts: a process that dies mid-answer cuts the body, not only the connection.
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) return { answer: { status: res.status, ms, retryAfter: res.headers.has('retry-after') } };
    const body = JSON.parse(text) as { data?: Figures };
    const tiers = body?.data?.by_adoption_tier;
    return { answer: { status: 200, ms, tiers: tiers !== null && tiers !== undefined }, figures: body?.data };
  } catch (e) {
    return { answer: { status: noAnswer(e), ms: performance.now() - started } };
  }
}

/** Up, or how it ended: a process dying of its heap may still be writing its report when the answers are in. */
async function stateAfter(api: Server): Promise<{ after: string; died: boolean }> {
  const status = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.status, () => undefined);
  if (status === 200) return { after: 'up (/readyz 200)', died: false };
  for (let waited = 0; waited < 5_000 && !howExited(api); waited += 100) await new Promise((r) => setTimeout(r, 100));
  const how = howExited(api);
  return how ? { after: `exited (${how})`, died: true } : { after: `/readyz ${status ?? 'no answer'}`, died: false };
}

async function burst(c: BurstContext, caller: Caller, paths: string[]): Promise<{ row: BurstRow; figures: (Figures | undefined)[] }> {
  await c.settle();
  const api = await c.startApi(`API (burst by the ${caller.name})`);
  // Node's own word on a death by heap (FATAL ERROR: Reached heap limit …) comes before a native stack longer than
  // the server's kept tail: watched for here.
  let output = '';
  api.child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-65_536)));
  try {
    const start = rssMb(api.pid);
    const rss = sampleRss(api.pid, RSS_EVERY_MS);
    const answered = await Promise.all(paths.map((p) => ask(api.url + p, caller.token)));
    rss.stop();
    const { after, died } = await stateAfter(api);
    if (died) {
      const why = /FATAL ERROR: [^\n]*/.exec(output)?.[0] ?? api.tail().split('\n').pop();
      c.notes.push(`${NOTED_AS}: the API of the burst by the ${caller.name} ${after}${why ? `: "${why.trim().slice(0, 200)}"` : ''}.`);
    }
    const row: BurstRow = { caller: caller.name, answers: answered.map((a) => a.answer), rss: { start, peak: rss.peak() }, after };
    return { row, figures: answered.map((a) => a.figures) };
  } finally {
    await stopServer(api, 15_000);
  }
}

/** The rows, a burst per caller in order; a member's answer must be the admin's for the same window, tiers aside. */
export async function measureFiguresBursts(c: BurstContext): Promise<BurstRow[]> {
  const fromDays = burstFromDays(c.lastDay, c.requests);
  const paths = fromDays.map((from) => burstPath(c.organizationId, from, c.lastDay));
  const rows: BurstRow[] = [];
  const figures: { caller: Caller; figures: (Figures | undefined)[] }[] = [];
  for (const caller of c.callers) {
    const measured = await burst(c, caller, paths);
    rows.push(measured.row);
    figures.push({ caller, figures: measured.figures });
    const ok = measured.row.answers.filter((a) => a.status === 200).length;
    c.log(`burst: ${paths.length} requests by the ${caller.name}: ${ok} × 200, API ${measured.row.after}, RSS peak ${measured.row.rss.peak.toFixed(0)} MB`);
  }
  const admin = figures.find((f) => f.caller.admin);
  const withoutTiers = (f: Figures) => JSON.stringify({ ...f, by_adoption_tier: null });
  for (const member of figures.filter((f) => !f.caller.admin)) {
    const differing = paths.filter((_, i) => {
      const [mine, theirs] = [member.figures[i], admin?.figures[i]];
      return mine && theirs && withoutTiers(mine) !== withoutTiers(theirs);
    });
    if (differing.length) c.differences.push(`${NOTED_AS}: the ${member.caller.name}'s figures differ from the admin's beyond the tiers for ${differing.length} windows, e.g. \`${differing[0]}\``);
  }
  c.notes.push(
    `${NOTED_AS}: ${paths.length} requests at once per caller, from ${fromDays[0]} … ${fromDays[fromDays.length - 1]} (each its own window and computation) ` +
      `to ${c.lastDay}, each burst on an API of its own under npm start's heap flags; ` +
      `"no answer": the connection refused, cut before the answer ended, or nothing within ${ANSWER_WAIT_MS / 1000} s; RSS sampled every ${RSS_EVERY_MS} ms.`,
  );
  return rows;
}
