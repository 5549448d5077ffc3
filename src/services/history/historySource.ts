/**
 * A provider's history in the domain's words (docs/history.md): each provider's importer (`history.ts` in its folder
 * of src/integrations) reads its API a page at a time and hands back what its webhooks would have brought; the
 * history runner (historyImport.ts) stores every page through the same writers as the webhooks, with the cursor
 * that resumes it, in one change.
 */
import type { ChatMessage } from '../activity/conversations';
import type { Credential } from '../apps/credential';
import type { Activity } from '../git/activity';
import type { OperationEvent } from '../operations/operationInput';
import type { TaskInput } from '../work/taskInput';
import type { ProviderHttp } from '../../outbound/providerHttp';

/** What a provider's history is read as, each kind with its own cursor per scope. */
export const HISTORY_KINDS = ['pull_requests', 'review_comments', 'deployments', 'issues', 'incidents', 'alerts', 'messages'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** One part of a connection's history with a cursor of its own: a repository, a PagerDuty service, a Slack channel. */
export interface HistoryScope {
  /** The provider's stable id of it (a repository's id, a service's id, a channel's id): the cursor's key. */
  key: string;
  /** As people know it (`owner/repo`, the service's name, `#general`), for progress and messages. */
  name: string;
}

/** The span of time asked for: items created or changed within it. */
export interface HistoryWindow {
  since: Date;
  until: Date;
}

/** What an importer reads the provider's API with. */
export interface HistoryReading {
  /** The app's or git app's, from `set-credential` (src/services/apps/credentials.ts), opened. */
  credential: Credential;
  /** The API's root: the provider's own, or the operator's `--base-url` (a self-hosted server, a test's fake). */
  baseUrl: string;
  /** Every call goes through it: the address guard, the answer cap, the provider's rate-limit waits told to `onWait`. */
  http: ProviderHttp;
  connection: { id: string; organizationId: string };
}

/**
 * One page of a scope's history of one kind. A git app's pages bring git activity (pull requests with their
 * reviews, deployments, issues labelled incidents) and tasks (its issues); an app's, incidents and deployments, or
 * chat messages.
 */
export interface HistoryPage {
  /** The provider's items this page listed (pull requests, incidents, messages…), for progress. */
  read: number;
  activities?: Activity[];
  tasks?: TaskInput[];
  operations?: OperationEvent[];
  messages?: ChatMessage[];
  /**
   * Where the listing goes on after this page, opaque to all but the importer (a page's URL, a time): stored with
   * the page, so a stopped run starts there. Null when this page was the window's last.
   */
  next: string | null;
}

/** A provider's history importer: what its folder's `history.ts` offers the registry. */
export interface HistorySource {
  /** The API's root when no `--base-url` is given. */
  defaultBaseUrl: string;
  /** What its scopes are, in the plural (`repositories`, `services`, `channels`), for progress and messages. */
  scopeNoun: string;
  /** The kinds it reads from each scope, in order. */
  kinds: readonly HistoryKind[];
  /**
   * The scopes the credential can read, in a stable order; only those named in `only` (full names or ids) when given.
   * Throws CredentialRefused (src/outbound/providerHttp.ts) when the provider refuses the credential.
   */
  scopes(reading: HistoryReading, only?: readonly string[]): Promise<HistoryScope[]>;
  /**
   * The scope's items of `kind` created or changed within the window, a page at a time, from `cursor` (a page's `next`)
   * when given, else from the start. Bounded memory: one page of the provider's answer at a time. Throws
   * CredentialRefused when the provider refuses the credential for this scope, ProviderFailure for an answer it
   * cannot use.
   */
  pages(reading: HistoryReading, scope: HistoryScope, kind: HistoryKind, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage>;
}
