import type { App } from '../../db/models';
import type { NewApp } from '../../src/services/apps/apps';
import type { Webhook } from '../../src/integrations/provider';

/** A signing provider's check of a delivery's body, to call alone. */
export function bodyAuthentication(webhook: Webhook) {
  const { authenticate } = webhook;
  if (!('body' in authenticate)) throw new Error('this provider sends its secret in a header: it signs no body');
  return authenticate.body;
}

/** A new app of a provider that pushes deliveries, with the webhook secret it was made with. */
export function withSecret({ app, secret }: NewApp): { app: App; secret: string } {
  if (secret === null) throw new Error(`app ${app.id} (${app.provider}) has no webhook secret: its provider sends no deliveries`);
  return { app, secret };
}
