import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { invalid, unauthenticated } from '../../../src/errors';
import type { IntegrationProvider } from '../../../src/integrations/provider';
import { header, jsonBody, namedDeliveryId } from '../../../src/integrations/webhook';

/**
 * A provider that exists only in this folder, made as a newcomer would make the next one (docs/architecture.md#adding-a-provider):
 * "Acme Tracker" pushes issues to `/ingest/acme_tracker/{app_id}`, names its event in `X-Acme-Event` and its
 * delivery in `X-Acme-Delivery`, and signs the body as `X-Acme-Signature: hmac-sha256=<hex>` with the app's secret.
 */
export const acmeTracker = {
  id: 'acme_tracker',
  name: 'Acme Tracker',
  category: 'issues',
  setup: 'Acme → Settings → Hooks: URL and secret as above; events: issue.updated',
  webhook: {
    eventHeader: 'x-acme-event',
    bodyLimitBytes: 64 * 1024,
    authenticate: {
      body(headers, body, secrets) {
        const given = /^hmac-sha256=([0-9a-f]{64})$/.exec(header(headers, 'x-acme-signature') ?? '')?.[1];
        if (!given) throw unauthenticated('Missing X-Acme-Signature: give the Acme hook the secret npm run apps printed');
        const digest = Buffer.from(given, 'hex');
        const matches = secrets.map((secret) => timingSafeEqual(digest, createHmac('sha256', secret).update(body).digest()));
        if (!matches.includes(true)) throw unauthenticated("X-Acme-Signature does not match the body: the hook's secret differs from the app's");
      },
    },
    parse({ headers, body }) {
      const id = namedDeliveryId(header(headers, 'x-acme-delivery'), 'X-Acme-Delivery', 'Acme names each delivery there');
      const event = header(headers, 'x-acme-event') ?? '';
      if (event !== 'issue.updated') return { id, event, ignored: `event '${event}' is not stored by this service` };
      const issue = issueOf(jsonBody(headers, body));
      const at = new Date(issue.updated_at);
      return {
        id,
        event,
        tasks: [
          {
            kind: 'upsert',
            task: {
              board: issue.project,
              externalId: issue.key,
              title: issue.title,
              type: 'task',
              statusName: issue.done ? 'Done' : 'Open',
              statusCategory: issue.done ? 'done' : 'backlog',
              assignee: null,
              storyPoints: null,
              parentExternalId: null,
              createdAt: at,
              updatedAt: at,
              resolvedAt: issue.done ? at : null,
              transitions: [],
            },
          },
        ],
      };
    },
  },
} as const satisfies IntegrationProvider;

const acmeDelivery = z.object({
  issue: z.object({ key: z.string(), project: z.string(), title: z.string(), done: z.boolean(), updated_at: z.iso.datetime() }),
});

function issueOf(payload: unknown) {
  const parsed = acmeDelivery.safeParse(payload);
  if (!parsed.success) throw invalid(`Not an Acme delivery: ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
  return parsed.data.issue;
}
