import type { ServerResponse } from 'node:http';

/**
 * Runs `onClose` once the response is closed: sent, or its client gone. Node emits `close` once, and a listener added
 * after it never runs; a request whose client left while it waited (for the token check, the rate limits, a body
 * budget) is closed already when a later handler comes to listen, so `onClose` then runs at once.
 */
export function whenClosed(res: ServerResponse, onClose: () => void): void {
  if (res.closed) onClose();
  else res.once('close', onClose);
}
