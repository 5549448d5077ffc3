/**
 * When a failed delivery is tried again (docs/webhooks.md): after the n-th failed attempt, the n-th delay of
 * WEBHOOK_RETRY_DELAYS (read and checked by src/config.ts); after the last one the delivery has failed for good. Jitter spreads the retries of many
 * deliveries that failed together (a receiver that was down) and only ever lengthens a delay.
 */
/** At most this share of a delay is added to it. */
export const JITTER = 0.1;

/** Milliseconds until the next attempt after `failedAttempts` failures, or undefined when none is left. */
export function retryDelay(failedAttempts: number, delays: readonly number[], random: () => number = Math.random): number | undefined {
  const base = delays[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER * random()));
}
