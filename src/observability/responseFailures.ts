import type { Response } from 'express';
import { domainErrorOf } from '../errors';

/**
 * Each surface's error handler calls this with what it answered: a store out of reach is told apart from the other
 * 503s (a race lost, a figure too slow) for the metrics (`failure` of src/http/observeResponses.ts). Here, below every
 * surface, so that the surfaces stay peers: none imports another's folder for it.
 */
export function noteFailure(res: Pick<Response, 'locals'>, err: unknown): void {
  const outage = domainErrorOf(err)?.detail.outage;
  if (outage) res.locals.failure = `${outage}_unavailable`;
}
