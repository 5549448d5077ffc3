import type { AppCategory } from '../../db/models';
import type { VendorPuller } from '../services/aiVendors/vendorDay';
import type { HistorySource } from '../services/history/historySource';
import type { ChatMessage } from '../services/activity/conversations';
import type { Activity } from '../services/git/activity';
import type { OperationEvent } from '../services/operations/operationInput';
import type { TaskEvent } from '../services/work/taskInput';

/** A request's headers as Node gives them: lower-case names. */
export type Headers = Record<string, string | string[] | undefined>;

/**
 * One provider the service connects to (docs/architecture.md#integrations): what it is called, what it brings in,
 * and what it offers: a webhook that pushes to `/ingest/<id>/<connection id>`, a puller the service runs against
 * its API. Everything the service knows of a provider is in its folder, `src/integrations/<id>/`; the registry
 * (src/integrations/registry.ts) is the only list of them.
 */
export interface IntegrationProvider {
  /** The path segment of its deliveries and the `provider` stored on its connections. */
  id: string;
  /** As people know it. */
  name: string;
  /** What it brings in. A git provider's connections are git apps; every other's are apps. */
  category: AppCategory;
  webhook?: Webhook;
  puller?: VendorPuller;
  apiCredential?: ApiCredential;
  /** Its history read from its API with that credential (`npm run import -- <id>`, and the daily catch-up: docs/history.md). */
  history?: HistorySource;
  /** What to set at the provider so its deliveries come (the events to tick), said once when a connection is made. */
  setup?: string;
  /** Jira's: an app names the issue field that holds story points (others send their own estimate). */
  namesPointsField?: boolean;
  /** The deployments API's: a board's name may be a repository's id or full name, placed without a mapping. */
  boardsNameRepositories?: boolean;
  /** Bitbucket's: a pull request names its commits by an abbreviation, completed when a commit starting with it arrives. */
  abbreviatesShas?: boolean;
}

/**
 * What the service reads the provider's API with, for the history importers (docs/ingest.md#credentials-for-reading-the-providers-api),
 * kept per connection by `set-credential`. An AI vendor's puller keeps its own credential instead.
 */
export interface ApiCredential {
  /** The credential the provider issues, in words, for a message that says what to give. */
  name: string;
  /** GitHub's: an App's private key and installation may stand in for a token. */
  githubApp?: boolean;
}

/**
 * How a provider's deliveries are read (docs/ingest.md): the ingest pipeline (src/ingest/pipeline.ts) finds the
 * connection, reads the body within `bodyLimitBytes`, calls `authenticate`, then `parse`, and hands what it
 * brought to the domain's writer of its kind.
 */
export interface Webhook {
  /** A header only this provider sends: a delivery carrying it at another provider's URL is pointed here. */
  eventHeader?: string;
  /** The largest body it sends: its documented cap where it has one, else 1 MB. */
  bodyLimitBytes: number;
  /** The segments after the connection id it takes (`/ingest/deployments/{app}/deployments`); none without. */
  resources?: readonly string[];
  authenticate: HeadAuthentication | BodyAuthentication;
  /** Throws `invalid` (400, saying what to fix) for a body that is not this provider's. */
  parse(delivery: ReceivedDelivery): Delivery;
}

/** A provider that sends the secret itself in a header: checked before a byte of the body is read. */
export interface HeadAuthentication {
  /** Throws `unauthenticated` (401) unless the headers carry one of the secrets. */
  head(headers: Headers, secrets: string[]): void;
}

/** A provider that signs the body: the signature is checked once the body is read, before it is parsed. */
export interface BodyAuthentication {
  /** Throws `unauthenticated` (401) unless signed with one of the secrets; `invalid` for a stale delivery. */
  body(headers: Headers, body: Buffer, secrets: string[], now: Date): void | Promise<void>;
}

/** An authenticated delivery, as `parse` reads it. */
export interface ReceivedDelivery {
  headers: Headers;
  body: Buffer;
  /** The path's segment after the connection id, for providers with `resources`. */
  resource?: string;
  /** The connection's own settings a translation needs (Jira's story points field). */
  settings: { pointsField: string | null };
}

/**
 * What a delivery brought, for the writer of its kind: git activity, tasks, incidents and deployments, chat
 * messages; why it is acknowledged and ignored (202); a ping (`pong`); or the answer a handshake expects (Slack's
 * challenge). `id` is the provider's delivery or event id, repeated by a redelivery; null where the provider names
 * none (the deployments API: the caller's own id keys the row).
 */
export type Delivery =
  | { id: string; event: string; activity: Activity }
  | { id: string; event: string; tasks: TaskEvent[] }
  | { id: string | null; event: string; operations: OperationEvent[] }
  | { id: string; event: string; messages: ChatMessage[] }
  | { id: string | null; event: string; ignored: string }
  | { id: string; event: string; ping: true }
  | { id: null; event: string; reply: Record<string, string> };
