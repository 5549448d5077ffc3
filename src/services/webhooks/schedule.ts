/**
 * When a failed delivery is tried again (DESIGN §12): after the n-th failed attempt, the n-th delay of
 * WEBHOOK_RETRY_DELAYS; after the last one the delivery has failed for good. Jitter spreads the retries of many
 * deliveries that failed together (a receiver that was down) and only ever lengthens a delay.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const MAX_RETRIES = 20;
/** 5s, 5m, 30m, 2h, 5h, 10h, 10h: about 27.6 hours from the first attempt to the last. */
export const DEFAULT_RETRY_DELAYS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** At most this share of a delay is added to it. */
export const JITTER = 0.1;

/** `5s,5m,30m` → milliseconds; undefined for anything else. An empty list means no retries. */
export function parseDelays(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length > MAX_RETRIES) return undefined;
  const delays: number[] = [];
  for (const part of parts) {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(part);
    if (!match) return undefined;
    delays.push(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  }
  return delays;
}

/** Milliseconds until the next attempt after `failedAttempts` failures, or undefined when none is left. */
export function retryDelay(failedAttempts: number, delays: readonly number[], random: () => number = Math.random): number | undefined {
  const base = delays[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER * random()));
}
