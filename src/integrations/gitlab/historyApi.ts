/**
 * GitLab's REST API as the history importer (history.ts) reads it: @gitbeaker/core builds each request (paths,
 * query, the `PRIVATE-TOKEN` header) and reads offset pagination (`X-Next-Page`); every request goes out through
 * `providerRequest` (src/outbound/providerHttp.ts): the address guard and answer cap, a 429's `Retry-After` (or
 * GitLab's `RateLimit-Reset`) waited out and told to `onWait`, 5xx retried, a 401 or 403 refusing the credential.
 * gitbeaker's own requester (@gitbeaker/rest) is not used: it calls the global fetch, around the guard.
 */
import type { FormattedResponse, RequestOptions, ResourceOptions } from '@gitbeaker/requester-utils';
import { z } from 'zod';
import type { HistoryReading } from '../../services/history/historySource';
import { jsonOf, ProviderFailure, providerRequest } from '../../outbound/providerHttp';

/** GitLab.com's API root; a self-managed server's is its own `https://<host>/api/v4`. */
export const GITLAB_API = 'https://gitlab.com/api/v4';

/** The most items GitLab lists on a page. */
export const PER_PAGE = 100;

/** The resource is not there (a project the token cannot see, an endpoint this server lacks). */
export class GitlabNotFound extends ProviderFailure {}

/** What gitbeaker hands the request handler: the options its default options handler made. */
const prepared = z.object({
  prefixUrl: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.string()),
  searchParams: z.string().optional(),
});

/** GitLab answers an object, or a page of objects. */
const item = z.record(z.string(), z.unknown());
const answerBody = z.union([item, z.array(item)]);

/**
 * The resources the importer reads, each sending its requests through the reading's careful client. gitbeaker loads
 * when a history is first read, not in every process that lists the providers (about 3 MB of heap for good).
 */
export async function gitlabApi(reading: HistoryReading, scopeName: string) {
  if (reading.credential.kind !== 'token') throw new ProviderFailure(`GitLab ${scopeName}: GitLab reads with an access token, not a ${reading.credential.kind} credential`);
  const root = reading.baseUrl.replace(/\/+$/, '');
  // gitbeaker appends /api/v4 to the host it is given.
  if (!root.endsWith('/api/v4')) throw new ProviderFailure(`GitLab ${scopeName}: the base URL ${root} is not GitLab's API root, which ends in /api/v4`);
  const handle = async (endpoint: string, options?: Record<string, unknown>): Promise<FormattedResponse> => {
    const request = prepared.parse(options);
    const url = `${request.prefixUrl.replace(/\/+$/, '')}/${endpoint}${request.searchParams ? `?${request.searchParams}` : ''}`;
    const what = `GitLab ${scopeName}: ${request.method} ${new URL(url).pathname}`;
    const answer = await providerRequest(reading.http, url, { method: request.method, headers: { ...request.headers, accept: 'application/json' } }, what, true);
    if (answer.status === 404) {
      await answer.body?.cancel();
      throw new GitlabNotFound(`${what}: not found (the token cannot see it, or this GitLab has no such endpoint)`);
    }
    const body = answerBody.safeParse(await jsonOf(answer, what));
    if (!body.success) throw new ProviderFailure(`${what}: the answer is neither an object nor a list of objects`);
    return { body: body.data, headers: Object.fromEntries(answer.headers), status: answer.status };
  };
  const [{ Deployments, Issues, MergeRequestApprovals, MergeRequestNotes, MergeRequests, Projects }, { createRequesterFn }] = await Promise.all([
    import('@gitbeaker/core'),
    import('@gitbeaker/requester-utils'),
  ]);
  const options = {
    host: root.slice(0, -'/api/v4'.length),
    token: reading.credential.token,
    // The waits are GitLab's to say (429s); gitbeaker's own client-side limits would only add timers.
    rateLimits: {},
    queryTimeout: null,
    requesterFn: createRequesterFn(async (_resource: ResourceOptions, request: RequestOptions) => request, handle),
  };
  return {
    projects: new Projects(options),
    mergeRequests: new MergeRequests(options),
    notes: new MergeRequestNotes(options),
    approvals: new MergeRequestApprovals(options),
    deployments: new Deployments(options),
    issues: new Issues(options),
  };
}

export type GitlabApi = Awaited<ReturnType<typeof gitlabApi>>;
