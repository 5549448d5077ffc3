import { ScriptedAnswer, ScriptedPeer } from '../scriptedPeer';
import reportAnswer from './users-1-day.json';
import documentedRow from './users-1-day-row.json';

/** One scripted answer of the fake: a status with a body and headers, or the day's report (links to its files). */
export type Scripted = { status: number; body?: string; headers?: Record<string, string> } | 'report';

/** GitHub's documented user row, rewritten in its login, id and day only. */
export function copilotUserRow(login: string, userId: number, day: string, scale = 1): Record<string, unknown> {
  const row = JSON.parse(JSON.stringify(documentedRow)) as Record<string, unknown>;
  Object.assign(row, { user_login: login, user_id: userId, day, day_partition: day });
  // A second day's numbers (a correction) are GitHub's own multiplied: the shape is the documented one.
  if (scale !== 1) for (const key of ['code_acceptance_activity_count', 'code_generation_activity_count', 'loc_added_sum', 'loc_suggested_to_add_sum']) row[key] = Number(row[key]) * scale;
  return row;
}

/**
 * A local stand-in for api.github.com's Copilot usage metrics reports: per day, a queue of scripted answers to the
 * users report (the last one repeats), and per file a queue of answers to its download link. Requests are recorded.
 */
export class FakeGitHub {
  private readonly days = new Map<string, Scripted[]>();
  private readonly files = new Map<string, { lines: string[]; failures: number[] }>();
  private readonly peer = new ScriptedPeer((request, url) => this.answer(url));

  get base(): string {
    return this.peer.base;
  }

  get requests() {
    return this.peer.requests.map((r) => ({ path: r.path, authorization: r.headers.authorization, apiVersion: r.headers['x-github-api-version'] as string | undefined }));
  }

  /** The day's report: its files, each a list of rows (one NDJSON line each, or a raw line as given). */
  report(day: string, files: (Record<string, unknown> | string)[][], answers: Scripted[] = ['report']): void {
    this.days.set(day, answers);
    files.forEach((rows, i) => this.files.set(`${day}-${i + 1}.ndjson`, { lines: rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))), failures: [] }));
  }

  /** Forgets every scripted day and file: each test scripts its own. */
  reset(): void {
    this.days.clear();
    this.files.clear();
  }

  /** The file's next requests fail with these statuses, once each (0: the connection drops halfway through the file). */
  failFile(day: string, index: number, ...statuses: number[]): void {
    this.files.get(`${day}-${index}.ndjson`)!.failures.push(...statuses);
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  stop(): Promise<void> {
    return this.peer.stop();
  }

  private answer(url: URL): ScriptedAnswer {
    const file = /^\/files\/(.+)$/.exec(url.pathname);
    if (file) return this.serveFile(file[1]);
    if (!/^\/(orgs|enterprises)\/[^/]+\/copilot\/metrics\/reports\/users-1-day$/.test(url.pathname)) return { status: 404 };
    const day = url.searchParams.get('day') ?? '';
    const queue = this.days.get(day) ?? [{ status: 404, body: '{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}' }];
    const next = queue.length > 1 ? queue.shift()! : queue[0];
    if (next === 'report') {
      const links = [...this.files.keys()].filter((name) => name.startsWith(`${day}-`)).map((name) => `${this.base}/files/${name}`);
      return { status: 200, body: { ...reportAnswer, download_links: links, report_day: day } };
    }
    return { status: next.status, text: next.body ?? '', headers: next.headers };
  }

  private serveFile(name: string): ScriptedAnswer {
    const file = this.files.get(name);
    if (!file) return { status: 404 };
    const failure = file.failures.shift();
    if (failure === 0) return { status: 200, cutAfter: file.lines[0].slice(0, 20), headers: { 'content-type': 'application/x-ndjson' } };
    if (failure) return { status: failure };
    return { status: 200, text: `${file.lines.join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } };
  }
}
