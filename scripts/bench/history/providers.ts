/**
 * The history rows of `npm run bench`, one per provider whose history is read (docs/performance.md#the-history-import-rows):
 * how big a year of a busy organization is there, how its fake API is served, and how the importer is pointed at it.
 */
import { bitbucketApi, bitbucketSizes } from './bitbucket';
import { githubApi, githubSizes } from './github';
import { gitlabApi, gitlabSizes } from './gitlab';
import { opsgenieApi, opsgenieSizes } from './opsgenie';
import { pagerdutyApi, pagerdutySizes } from './pagerduty';
import { slackApi, slackSizes } from './slack';
import type { FakeApi, Sizes, World } from './world';

export type HistoryProviderId = 'github' | 'gitlab' | 'bitbucket' | 'pagerduty' | 'opsgenie' | 'slack';

export interface HistoryBenchProvider {
  id: HistoryProviderId;
  connection: 'git_app' | 'app';
  /** The full bench's year, or `--quick`'s smaller one. */
  sizes(quick: boolean): Sizes;
  api(world: World): FakeApi;
  /** The API root the importer is given (`--base-url`): the fake's own, or beneath it. */
  root(base: string): string;
  /** A credential of the provider's shape (the fake accepts only it). */
  token: string;
}

export const HISTORY_PROVIDERS: HistoryBenchProvider[] = [
  { id: 'github', connection: 'git_app', sizes: githubSizes, api: githubApi, root: (base) => base, token: 'github_pat_11BENCH0000000000000000_history0bench0token0000000000000000000000000' },
  { id: 'gitlab', connection: 'git_app', sizes: gitlabSizes, api: gitlabApi, root: (base) => `${base}/api/v4`, token: 'glpat-benchHistory0000000' },
  { id: 'bitbucket', connection: 'git_app', sizes: bitbucketSizes, api: bitbucketApi, root: (base) => `${base}/2.0`, token: 'ATCTT3xFfGN0benchHistoryAccessToken00000000' },
  { id: 'pagerduty', connection: 'app', sizes: pagerdutySizes, api: pagerdutyApi, root: (base) => base, token: 'y_NbAkKc66ryYTWUbench' },
  { id: 'opsgenie', connection: 'app', sizes: opsgenieSizes, api: opsgenieApi, root: (base) => base, token: 'eb243592-faa2-4ba2-a551-1afdf565c889' },
  { id: 'slack', connection: 'app', sizes: slackSizes, api: slackApi, root: (base) => `${base}/api`, token: 'xoxb-0000000000-0000000000000-benchHistoryToken000000' },
];

export function fakeApiOf(id: HistoryProviderId, world: World): FakeApi {
  const provider = HISTORY_PROVIDERS.find((p) => p.id === id);
  if (!provider) throw new Error(`no history row for ${id}`);
  return provider.api(world);
}

/** The row's name in the report and for --filter. */
export const historyRowPath = (id: HistoryProviderId) => `npm run import -- ${id} (history, a year)`;
