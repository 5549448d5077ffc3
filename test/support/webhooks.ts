import type { Webhook } from '../../src/integrations/provider';

/** A signing provider's check of a delivery's body, to call alone. */
export function bodyAuthentication(webhook: Webhook) {
  const { authenticate } = webhook;
  if (!('body' in authenticate)) throw new Error('this provider sends its secret in a header: it signs no body');
  return authenticate.body;
}
