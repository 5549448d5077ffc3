import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
  readonly requests: { path: string; authorization: string | undefined; apiVersion: string | undefined }[] = [];
  private readonly days = new Map<string, Scripted[]>();
  private readonly files = new Map<string, { lines: string[]; failures: number[] }>();
  private server?: http.Server;
  base = '';

  /** The day's report: its files, each a list of rows (one NDJSON line each, or a raw line as given). */
  report(day: string, files: (Record<string, unknown> | string)[][], answers: Scripted[] = ['report']): void {
    this.days.set(day, answers);
    files.forEach((rows, i) => this.files.set(`${day}-${i + 1}.ndjson`, { lines: rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))), failures: [] }));
  }

  /** The file's next requests fail with these statuses, once each. */
  failFile(day: string, index: number, ...statuses: number[]): void {
    this.files.get(`${day}-${index}.ndjson`)!.failures.push(...statuses);
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base);
    this.requests.push({ path: `${url.pathname}${url.search}`, authorization: req.headers.authorization, apiVersion: req.headers['x-github-api-version'] as string | undefined });
    const file = /^\/files\/(.+)$/.exec(url.pathname);
    if (file) return this.serveFile(file[1], res);
    if (!/^\/(orgs|enterprises)\/[^/]+\/copilot\/metrics\/reports\/users-1-day$/.test(url.pathname)) return void res.writeHead(404).end();
    const day = url.searchParams.get('day') ?? '';
    const queue = this.days.get(day) ?? [{ status: 404, body: '{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}' }];
    const next = queue.length > 1 ? queue.shift()! : queue[0];
    if (next === 'report') {
      const links = [...this.files.keys()].filter((name) => name.startsWith(`${day}-`)).map((name) => `${this.base}/files/${name}`);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...reportAnswer, download_links: links, report_day: day }));
    }
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body ?? '');
  }

  private serveFile(name: string, res: http.ServerResponse): void {
    const file = this.files.get(name);
    if (!file) return void res.writeHead(404).end();
    const failure = file.failures.shift();
    if (failure) return void res.writeHead(failure).end();
    res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(`${file.lines.join('\n')}\n`);
  }
}
