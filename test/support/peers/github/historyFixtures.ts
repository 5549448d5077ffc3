import type { ProviderHttp } from '../../../../src/outbound/providerHttp';
import type { HistoryPage, HistoryReading, HistoryScope, HistoryWindow, HistoryKind } from '../../../../src/services/history/historySource';
import type { Credential } from '../../../../src/services/apps/credentials';
import { githubHistory } from '../../../../src/integrations/github/history';
import devlakeIssues from '../../../fixtures/history/github/devlakeIssues.json';
import devlakePulls from '../../../fixtures/history/github/devlakePullRequests.json';
import devlakeRepository from '../../../fixtures/history/github/devlakeRepository.json';
import devlakeComments from '../../../fixtures/history/github/devlakeReviewComments.json';
import devlakeReviews from '../../../fixtures/history/github/devlakeReviews.json';
import docs from '../../../fixtures/history/github/githubDocs.json';
import octokitRepository from '../../../fixtures/history/github/octokitGetRepository.json';
import octokitIssuePages from '../../../fixtures/history/github/octokitPaginateIssues.json';
import type { RepositoryHistory } from './fakeGitHubApi';

/** The recorded histories (test/fixtures/history/github/README.md), as the fake serves them. */

/** The pull request a review or comment belongs to, by the number its `pull_request_url` ends with. */
function byPullRequest(items: { pull_request_url: string }[]): Map<number, unknown[]> {
  const map = new Map<number, unknown[]>();
  for (const item of items) {
    const number = Number(/\/pulls\/(\d+)$/.exec(item.pull_request_url)?.[1]);
    map.set(number, [...(map.get(number) ?? []), item]);
  }
  return map;
}

/** panjf2000/ants as DevLake recorded it, with GitHub's documented deployment and its status. */
export function antsHistory(): RepositoryHistory {
  return {
    repository: structuredClone(devlakeRepository),
    pulls: structuredClone(devlakePulls),
    reviews: byPullRequest(structuredClone(devlakeReviews)),
    comments: byPullRequest(structuredClone(devlakeComments)),
    issues: structuredClone(devlakeIssues),
    deployments: structuredClone(docs.deployments),
    statuses: new Map([[docs.deployments[0].id, structuredClone(docs.deploymentStatuses)]]),
  };
}

/** GitHub's documented repository (the installation's and the user's lists' example), with no history. */
export function helloWorldHistory(): RepositoryHistory {
  return { repository: structuredClone(docs.installationRepositories.repositories[0]) };
}

/** octokit/fixtures' paginate-issues pages, each with the `Link` GitHub sent. */
export function paginateIssuesHistory(): RepositoryHistory {
  return { repository: structuredClone(octokitRepository), servedAs: 'octokit-fixture-org/paginate-issues', recorded: structuredClone(octokitIssuePages) };
}

export const ANTS: HistoryScope = { key: String(devlakeRepository.id), name: devlakeRepository.full_name };
export const PAGINATE_ISSUES: HistoryScope = { key: String(octokitRepository.id), name: 'octokit-fixture-org/paginate-issues' };
export const INSTALLATION_TOKEN = docs.installationToken;

/** A reading of the fake with a token, its waits recorded and slept at once. */
export function readingOf(base: string, credential: Credential, overrides: Partial<ProviderHttp> = {}): HistoryReading & { waits: { seconds: number; why: string }[]; slept: number[] } {
  const waits: { seconds: number; why: string }[] = [];
  const slept: number[] = [];
  const http: ProviderHttp = {
    // The fake answers on loopback over plain http: the operator's allowance lets calls reach it.
    outbound: { allowPrivate: true, answerMaxBytes: 10 * 1024 * 1024, reportMaxBytes: 10 * 1024 * 1024 },
    sleep: async (ms) => void slept.push(ms),
    now: () => new Date(),
    onWait: (seconds, why) => void waits.push({ seconds, why }),
    ...overrides,
  };
  return { credential, baseUrl: base, http, connection: { id: 'ga_history', organizationId: 'org_history' }, waits, slept };
}

/** Every page of a scope's kind, from `cursor`. */
export async function allPages(reading: HistoryReading, scope: HistoryScope, kind: HistoryKind, window: HistoryWindow, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const page of githubHistory.pages(reading, scope, kind, window, cursor)) pages.push(page);
  return pages;
}

export const windowFrom = (since: string, until = '2026-11-29T00:00:00Z'): HistoryWindow => ({ since: new Date(since), until: new Date(until) });
