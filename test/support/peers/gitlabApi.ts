/**
 * A local stand-in for GitLab's REST API (v4) serving recorded answers (test/fixtures/history/gitlab/README.md says
 * where each came from), as GitLab serves them: `PRIVATE-TOKEN` checked (GitLab's 401 body), listings filtered by
 * `updated_after`/`updated_before` (both inclusive, as GitLab's UpdatedAtFilterable is) or `id_after`, sorted,
 * and paged with `X-Page`, `X-Per-Page`, `X-Next-Page` and a `Link` header. `pageSize` caps a page below the
 * `per_page` asked, so a few recorded items make several pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RecordedRequest, ScriptedAnswer, ScriptedPeer } from './scriptedPeer';

const FIXTURES = path.join(__dirname, '../../fixtures/history/gitlab');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8');
/** A recorded listing (an array of GitLab's objects). */
export const gitlabList = (name: string): Record<string, unknown>[] => JSON.parse(fixture(name));
/** A recorded object. */
export const gitlabObject = (name: string): Record<string, unknown> => JSON.parse(fixture(name));

/** A project as the API shows it, and what it holds. */
export interface GitlabProjectData {
  project: Record<string, unknown>;
  mergeRequests?: Record<string, unknown>[];
  notes?: Record<string, unknown>[];
  /** Each merge request's approvals answer, by its iid; 404 for one without. */
  approvals?: Map<number, Record<string, unknown>>;
  deployments?: Record<string, unknown>[];
  issues?: Record<string, unknown>[];
}

export interface FakeGitlabOptions {
  token: string;
  projects: GitlabProjectData[];
  pageSize?: number;
  /** An answer given instead, once, to the first request whose path (without the query) matches. */
  interject?: { path: RegExp; answer: ScriptedAnswer };
}

export function fakeGitlab({ token, projects, pageSize = 100, interject }: FakeGitlabOptions): ScriptedPeer {
  let pending = interject;
  return new ScriptedPeer((request: RecordedRequest, url: URL): ScriptedAnswer => {
    if (pending && pending.path.test(url.pathname)) {
      const { answer } = pending;
      pending = undefined;
      return answer;
    }
    if (request.headers['private-token'] !== token) return { status: 401, body: { message: '401 Unauthorized' } };
    const route = url.pathname.replace(/^\/api\/v4\//, '');
    if (route === 'projects') {
      const after = Number(url.searchParams.get('id_after') ?? 0);
      return paged(url, projects.map((p) => p.project).filter((p) => Number(p.id) > after).sort((a, b) => Number(a.id) - Number(b.id)), pageSize);
    }
    const m = /^projects\/([^/]+)(\/.*)?$/.exec(route);
    const key = m ? decodeURIComponent(m[1]) : null;
    const held = projects.find(({ project }) => String(project.id) === key || project.path_with_namespace === key);
    if (!m || !held) return { status: 404, body: { message: '404 Project Not Found' } };
    const rest = m[2] ?? '';
    const list = (items: Record<string, unknown>[] = []) => paged(url, items.filter((i) => updatedWithin(i, url)).sort(newestFirst), pageSize);
    let n: RegExpExecArray | null;
    if (rest === '') return { status: 200, body: held.project };
    if (rest === '/merge_requests') return list(held.mergeRequests);
    if ((n = /^\/merge_requests\/(\d+)\/notes$/.exec(rest))) {
      const iid = Number(n[1]);
      return paged(url, (held.notes ?? []).filter((note) => note.noteable_iid === iid).sort((a, b) => String(a.created_at).localeCompare(String(b.created_at))), pageSize);
    }
    if ((n = /^\/merge_requests\/(\d+)\/approvals$/.exec(rest))) {
      const answer = held.approvals?.get(Number(n[1]));
      return answer ? { status: 200, body: answer } : { status: 404, body: { message: '404 Not found' } };
    }
    if (rest === '/deployments') return list(held.deployments);
    if (rest === '/issues') return list(held.issues);
    return { status: 404, body: { error: '404 Not Found' } };
  });
}

const newestFirst = (a: Record<string, unknown>, b: Record<string, unknown>) => String(b.updated_at).localeCompare(String(a.updated_at)) || Number(b.id) - Number(a.id);

function updatedWithin(item: Record<string, unknown>, url: URL): boolean {
  const at = Date.parse(String(item.updated_at));
  const after = url.searchParams.get('updated_after');
  const before = url.searchParams.get('updated_before');
  return (after === null || at >= Date.parse(after)) && (before === null || at <= Date.parse(before));
}

function paged(url: URL, items: Record<string, unknown>[], pageSize: number): ScriptedAnswer {
  const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), pageSize);
  const page = Number(url.searchParams.get('page') ?? 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const more = page * perPage < items.length;
  const link = (p: number) => {
    const to = new URL(url);
    to.searchParams.set('page', String(p));
    return to.href;
  };
  const headers: Record<string, string> = { 'x-page': String(page), 'x-per-page': String(perPage), 'x-total': String(items.length), 'x-next-page': more ? String(page + 1) : '', 'x-prev-page': page > 1 ? String(page - 1) : '' };
  if (more) headers.link = `<${link(page + 1)}>; rel="next", <${link(1)}>; rel="first"`;
  return { status: 200, body: slice, headers };
}
