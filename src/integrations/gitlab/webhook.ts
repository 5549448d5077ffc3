import { createHash, timingSafeEqual } from 'node:crypto';
import { invalid, unauthenticated } from '../../errors';
import type { Delivery, Webhook } from '../provider';
import { header, jsonBody, namedDeliveryId } from '../webhook';
import { GITLAB_EVENTS, gitlabActivity } from './activity';

const MB = 1024 * 1024;

/**
 * GitLab's project and group webhooks (docs/ingest.md), `POST /ingest/gitlab/{git_app_id}`: GitLab sends the secret
 * itself (`X-Gitlab-Token`), checked before the body is read, as SHA-256 digests in constant time, so neither its
 * length nor its content leaks through timing.
 */
export const gitlabWebhook: Webhook = {
  eventHeader: 'x-gitlab-event',
  // GitLab sends no payload whose JSON is larger than 25 MB (gitlab-org/gitlab!38687, "Limit webhook payload size to 25MB").
  bodyLimitBytes: 25 * MB,
  authenticate: {
    head(headers, secrets) {
      const token = header(headers, 'x-gitlab-token');
      if (!token) throw unauthenticated("Missing X-Gitlab-Token: set the webhook's secret token to the one `npm run gitapps` printed");
      const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
      const given = digest(token);
      // Every secret is compared, so the time taken does not say which one matched.
      const matches = secrets.map((s) => timingSafeEqual(given, digest(s)));
      if (!matches.includes(true)) throw unauthenticated("X-Gitlab-Token does not match the git app's webhook secret");
    },
  },
  parse({ headers, body }): Delivery {
    const event = header(headers, 'x-gitlab-event');
    if (!event) throw invalid('Missing X-Gitlab-Event header: GitLab names the event there');
    // GitLab 17.4+ keeps Idempotency-Key across retries and resends; X-Gitlab-Event-UUID (14.8+) names the event.
    const key = header(headers, 'idempotency-key') ?? header(headers, 'x-gitlab-event-uuid');
    if (!key) throw invalid('Missing X-Gitlab-Event-UUID header: GitLab 14.8 and later send it with every delivery');
    const id = namedDeliveryId(key, 'Idempotency-Key / X-Gitlab-Event-UUID', '');
    if (!isStoredEvent(event)) return { id, event, ignored: `event '${event}' is not stored by this service` };
    const kind = GITLAB_EVENTS[event];
    const payload = jsonBody(headers, body);
    const objectKind = typeof payload === 'object' && payload !== null && 'object_kind' in payload ? payload.object_kind : undefined;
    if (objectKind !== kind) throw invalid(`A ${event} carries object_kind '${kind}'; this body has ${JSON.stringify(objectKind) ?? 'none'}`);
    const result = gitlabActivity(kind, payload);
    return 'ignored' in result || 'tasks' in result ? { id, event, ...result } : { id, event, activity: result };
  },
};

const isStoredEvent = (event: string): event is keyof typeof GITLAB_EVENTS => Object.hasOwn(GITLAB_EVENTS, event);
