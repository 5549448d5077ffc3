/**
 * GitHub's pull requests read through its GraphQL API (README.md#history): fifty a query with up to fifty reviews
 * each, where REST asks once for every fifty pull requests' list and then twice for each of them. Each GraphQL node is
 * put back into the shape of the REST object the webhook translation reads (`restPullRequest`, `restReview`), so
 * what is stored is what the webhooks and the REST lists give.
 *
 * GitHub charges a query a point for every hundred connections it asks (docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api):
 * fifty pull requests with fifty reviews each are 1 + 50 connections, one point; a hundred of them would be two.
 */
import { z } from 'zod';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { GitHubClient } from './historyClient';

/** Pull requests a query; each one's reviews are a connection, so fifty keep the query at one point. */
export const PULL_REQUESTS_PER_QUERY = 50;
/** Reviews asked with each pull request: a pull request with more is read again by REST, rarely. */
export const REVIEWS_PER_PULL_REQUEST = 50;

/** GraphQL names a bot `dependabot` where REST and the webhooks name it `dependabot[bot]`. */
const ACTOR = 'author { __typename login ... on User { databaseId } ... on Bot { databaseId } }';
const PULL_REQUEST = `number title state body createdAt updatedAt closedAt mergedAt headRefOid mergeCommit { oid } additions deletions isDraft ${ACTOR}`;
/**
 * When it last became ready for review: GitHub's timeline holds each `ready_for_review` as a ReadyForReviewEvent
 * (docs.github.com/en/graphql/reference/objects#readyforreviewevent). The last one is a connection of one node a
 * pull request: fifty of them beside fifty reviews each are 101 connections, still one point.
 */
const LAST_READY = 'timelineItems(last: 1, itemTypes: [READY_FOR_REVIEW_EVENT]) { nodes { ... on ReadyForReviewEvent { createdAt } } }';

const PULL_REQUESTS_QUERY = `query ($owner: String!, $name: String!, $first: Int!, $reviews: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {
      pageInfo { endCursor hasNextPage }
      nodes { ${PULL_REQUEST} ${LAST_READY} reviews(first: $reviews) { pageInfo { hasNextPage } nodes { databaseId state submittedAt ${ACTOR} } } }
    }
  }
}`;

const actor = z.object({ __typename: z.string().optional(), login: z.string(), databaseId: z.number().int().nullish() }).nullable();
export const pullRequestNode = z.looseObject({
  number: z.number().int(),
  title: z.string(),
  state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
  body: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.iso.datetime(),
  closedAt: z.string().nullable(),
  mergedAt: z.string().nullable(),
  headRefOid: z.string().nullable(),
  mergeCommit: z.object({ oid: z.string() }).nullable(),
  /** The lines it changes, which GET .../pulls does not count: a year read from the API has its sizes too. */
  additions: z.number().int().nonnegative().nullish(),
  deletions: z.number().int().nonnegative().nullish(),
  author: actor,
  /** A draft now (older GitHub Enterprise Servers may not say). */
  isDraft: z.boolean().nullish(),
});
export const reviewNode = z.object({ databaseId: z.number().int().nullable(), state: z.string(), submittedAt: z.string().nullable(), author: actor });
const listedPullRequest = pullRequestNode.extend({
  reviews: z.object({ pageInfo: z.object({ hasNextPage: z.boolean() }), nodes: z.array(reviewNode) }),
  timelineItems: z.object({ nodes: z.array(z.object({ createdAt: z.iso.datetime().optional() })) }).nullish(),
});
const pullRequestsAnswer = z.object({
  repository: z.object({
    pullRequests: z.object({ pageInfo: z.object({ endCursor: z.string().nullable(), hasNextPage: z.boolean() }), nodes: z.array(listedPullRequest) }),
  }).nullable(),
});
export type ListedPullRequest = z.infer<typeof listedPullRequest>;
type PullRequestNode = z.infer<typeof pullRequestNode>;
type ReviewNode = z.infer<typeof reviewNode>;

/** One page of a repository's pull requests, most recently changed first, from `after` (a page's endCursor). */
export async function pullRequestsPage(client: GitHubClient, owner: string, name: string, after: string | null, scope: string) {
  const answer = await client.graphql(PULL_REQUESTS_QUERY, { owner, name, after, first: PULL_REQUESTS_PER_QUERY, reviews: REVIEWS_PER_PULL_REQUEST });
  const page = parsed(pullRequestsAnswer, answer, scope, 'pull requests').repository;
  if (!page) throw new ProviderFailure(`${scope}: GitHub's GraphQL API found no such repository`);
  return page.pullRequests;
}

/**
 * The pull requests of these numbers, in one query (an alias each, no connection: one point), as REST objects; a
 * number GitHub finds no pull request for is left out.
 */
export async function pullRequestsNumbered(client: GitHubClient, owner: string, name: string, numbers: readonly number[], scope: string): Promise<Map<number, object>> {
  const found = new Map<number, object>();
  if (numbers.length === 0) return found;
  // Numbers are integers the list gave: written into the query as the aliases must be.
  const aliases = numbers.map((n) => `pr${n}: pullRequest(number: ${Math.trunc(n)}) { ${PULL_REQUEST} }`).join('\n    ');
  const answer = await client.graphql(`query ($owner: String!, $name: String!) {\n  repository(owner: $owner, name: $name) {\n    ${aliases}\n  }\n}`, { owner, name });
  const repository = parsed(z.object({ repository: z.record(z.string(), pullRequestNode.nullable()).nullable() }), answer, scope, 'pull requests').repository;
  for (const node of Object.values(repository ?? {})) if (node) found.set(node.number, restPullRequest(node));
  return found;
}

/** A GraphQL actor as REST's user: `login` and the numeric `id` the webhooks name them by. */
function restUser(author: z.infer<typeof actor>): { login: string; id: number | null } | null {
  if (!author) return null;
  const login = author.__typename === 'Bot' ? `${author.login}[bot]` : author.login;
  return { login, id: author.databaseId ?? null };
}

/** A pull request node as GET .../pulls lists it: the fields the webhook translation (activity.ts) reads. */
export function restPullRequest(node: PullRequestNode): object {
  return {
    number: node.number,
    title: node.title,
    state: node.state === 'OPEN' ? 'open' : 'closed',
    body: node.body,
    user: restUser(node.author),
    created_at: node.createdAt,
    updated_at: node.updatedAt,
    closed_at: node.closedAt,
    merged_at: node.mergedAt,
    head: { sha: node.headRefOid },
    merge_commit_sha: node.mergeCommit?.oid ?? null,
    additions: node.additions ?? null,
    deletions: node.deletions ?? null,
    draft: node.isDraft ?? null,
  };
}

/** When a listed pull request last became ready for review, if it ever was a draft made ready. */
export function lastReadyForReview(node: ListedPullRequest): Date | null {
  const at = node.timelineItems?.nodes.at(-1)?.createdAt;
  return at ? new Date(at) : null;
}

/** A review node as GET .../pulls/{n}/reviews lists it. */
export function restReview(node: ReviewNode): object {
  return { id: node.databaseId, state: node.state, submitted_at: node.submittedAt, user: restUser(node.author) };
}

function parsed<S extends z.ZodType>(schema: S, answer: unknown, scope: string, what: string): z.infer<S> {
  const result = schema.safeParse(answer);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ProviderFailure(`${scope}: GitHub's GraphQL answer of ${what} could not be read (${issue.path.join('.') || 'the answer'}: ${issue.message})`);
}
