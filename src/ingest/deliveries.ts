import type { Request } from 'express';
import type { Activity } from '../services/git/activity';
import type { IngestProvider } from '../services/git/apps/gitApps';
import type { TaskEvent } from '../services/work/taskInput';
import { containsNul } from '../wire/text';
import { badRequest } from './errors';
import { header } from './auth';
import { GITHUB_EVENTS, githubActivity } from './github';
import { GITLAB_EVENTS, gitlabActivity } from './gitlab';
import { BITBUCKET_EVENTS, BitbucketEvent, bitbucketActivity } from './bitbucket';

/** What a delivery asks for, read from its headers and body once it is authenticated. */
export interface ParsedDelivery {
  /** The provider's delivery id, unique per delivery and repeated by a redelivery. */
  id: string;
  event: string;
  /**
   * Activity to store; tasks (an issue that is no incident: the tracker writer's); `ping` when the provider only
   * checks the URL; `ignored` with the reason otherwise.
   */
  outcome: { activity: Activity } | { tasks: TaskEvent[] } | { ping: true } | { ignored: string };
}

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;

function requiredHeader(req: Request, name: string, hint: string): string {
  const value = header(req.headers, name.toLowerCase());
  if (!value) throw badRequest(`Missing ${name} header: ${hint}`);
  return value;
}

function deliveryId(value: string, name: string): string {
  if (!DELIVERY_ID.test(value)) throw badRequest(`${name} must be 1 to 100 letters, digits, '.', '_', ':' or '-'`);
  return value;
}

/** The JSON body. GitHub may also send it form-encoded (`payload=…`) when the webhook's content type says so. */
function body(req: Request, provider: IngestProvider): unknown {
  const raw = (req.body as Buffer).toString('utf8');
  let json = raw;
  if (provider === 'github' && req.is('application/x-www-form-urlencoded')) {
    json = new URLSearchParams(raw).get('payload') ?? '';
    if (!json) throw badRequest("A form-encoded delivery carries its JSON in the 'payload' field");
  } else if (!req.is('application/json')) {
    throw badRequest(`Send the body as application/json (got ${req.headers['content-type'] ?? 'no Content-Type'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  // Git refuses NUL in what it stores; a payload that holds one was not written by a git provider.
  if (containsNul(parsed)) throw badRequest('The body holds a NUL character (\\u0000); no field of a delivery may contain one');
  return parsed;
}

export function parseGithubDelivery(req: Request): ParsedDelivery {
  const event = requiredHeader(req, 'X-GitHub-Event', 'GitHub names the event there');
  const id = deliveryId(requiredHeader(req, 'X-GitHub-Delivery', 'GitHub names each delivery there'), 'X-GitHub-Delivery');
  // Many events are ignored (check runs, workflow jobs, ... when a webhook sends everything): their bodies are not parsed.
  if (!(GITHUB_EVENTS as readonly string[]).includes(event)) return { id, event, outcome: { ignored: `event '${event}' is not stored by this service` } };
  const result = githubActivity(event, body(req, 'github'));
  return { id, event, outcome: result === undefined ? { ping: true } : 'ignored' in result || 'tasks' in result ? result : { activity: result } };
}

export function parseGitlabDelivery(req: Request): ParsedDelivery {
  const event = requiredHeader(req, 'X-Gitlab-Event', 'GitLab names the event there');
  // GitLab 17.4+ keeps Idempotency-Key across retries and resends; X-Gitlab-Event-UUID (14.8+) names the event.
  const key = header(req.headers, 'idempotency-key') ?? requiredHeader(req, 'X-Gitlab-Event-UUID', 'GitLab 14.8 and later send it with every delivery');
  const id = deliveryId(key, 'Idempotency-Key / X-Gitlab-Event-UUID');
  const kind = GITLAB_EVENTS[event as keyof typeof GITLAB_EVENTS];
  if (!kind) return { id, event, outcome: { ignored: `event '${event}' is not stored by this service` } };
  const payload = body(req, 'gitlab');
  const objectKind = (payload as { object_kind?: unknown } | null)?.object_kind;
  if (objectKind !== kind) throw badRequest(`A ${event} carries object_kind '${kind}'; this body has ${JSON.stringify(objectKind) ?? 'none'}`);
  const result = gitlabActivity(kind, payload);
  return { id, event, outcome: 'ignored' in result || 'tasks' in result ? result : { activity: result } };
}

export function parseBitbucketDelivery(req: Request): ParsedDelivery {
  const event = requiredHeader(req, 'X-Event-Key', 'Bitbucket names the event there');
  // Bitbucket keeps X-Request-UUID on a retry and on a resend from the webhook's request history.
  const id = deliveryId(requiredHeader(req, 'X-Request-UUID', 'Bitbucket names each delivery there'), 'X-Request-UUID');
  if (!(BITBUCKET_EVENTS as readonly string[]).includes(event)) return { id, event, outcome: { ignored: `event '${event}' is not stored by this service` } };
  const payload = body(req, 'bitbucket');
  const result = bitbucketActivity(event as BitbucketEvent, payload);
  return { id, event, outcome: 'ignored' in result ? result : { activity: result } };
}

/** The delivery as its provider's parser reads it. */
export const parseDelivery: Record<IngestProvider, (req: Request) => ParsedDelivery> = {
  github: parseGithubDelivery,
  gitlab: parseGitlabDelivery,
  bitbucket: parseBitbucketDelivery,
};
