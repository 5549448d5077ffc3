import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis';

export interface RateLimitTierConfig {
  name: 'hour' | 'minute';
  points: number;
  durationSeconds: number;
}

/** What the three X-RateLimit-* headers (and Retry-After on 429) report. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the reported tier's window ends. */
  resetEpochSeconds: number;
  retryAfterSeconds?: number;
}

interface TierResult {
  tier: RateLimitTierConfig;
  allowed: boolean;
  res: RateLimiterRes;
}

/**
 * Two tiers (hour and minute, docs/api.md#tokens-limits-and-headers) per key. With Redis the counters are shared by every instance;
 * while Redis is unreachable each tier falls back to an in-memory insurance limiter and recovers by itself.
 */
export class RateLimiter {
  private readonly tiers: { tier: RateLimitTierConfig; limiter: RateLimiterAbstract }[];

  /** `onRejected`: told the tier of each refusal (the service's metrics count them). */
  constructor(
    tiers: RateLimitTierConfig[],
    redis?: RedisClient,
    keyPrefix = 'rl',
    private readonly onRejected?: (tier: RateLimitTierConfig['name']) => void,
  ) {
    this.tiers = tiers.map((tier) => {
      const base = { points: tier.points, duration: tier.durationSeconds, keyPrefix: `${keyPrefix}:${tier.name}` };
      const memory = new RateLimiterMemory(base);
      const limiter = redis
        ? new RateLimiterRedis({
            ...base,
            storeClient: redis,
            useRedisPackage: true,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      return { tier, limiter };
    });
  }

  /** Charges `points` requests to `key` on every tier. */
  async consume(key: string, points = 1, now = Date.now()): Promise<RateLimitDecision> {
    const results: TierResult[] = await Promise.all(
      this.tiers.map(async ({ tier, limiter }) => {
        try {
          return { tier, allowed: true, res: await limiter.consume(key, points) };
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes) return { tier, allowed: false, res: rejection };
          throw rejection;
        }
      }),
    );
    // Report the tier with the fewest requests left; the first listed (hourly) wins a tie.
    const reported = results.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
    const rejected = results.filter((r) => !r.allowed);
    const decision: RateLimitDecision = {
      allowed: rejected.length === 0,
      limit: reported.tier.points,
      remaining: Math.max(0, reported.res.remainingPoints),
      resetEpochSeconds: Math.ceil((now + reported.res.msBeforeNext) / 1000),
    };
    if (!decision.allowed) {
      const waitMs = Math.max(...rejected.map((r) => r.res.msBeforeNext));
      decision.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      decision.remaining = 0;
      const blocking = rejected.reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
      this.onRejected?.(blocking.tier.name);
      decision.limit = blocking.tier.points;
      decision.resetEpochSeconds = Math.ceil((now + blocking.res.msBeforeNext) / 1000);
    }
    return decision;
  }

  /** Gives `points` back to `key` on every tier (a response that turned out to cost nothing). */
  async reward(key: string, points: number): Promise<void> {
    await Promise.all(this.tiers.map(({ limiter }) => limiter.reward(key, points)));
  }
}

export function rateLimitTiers(perHour: number, perMinute: number): RateLimitTierConfig[] {
  return [
    { name: 'hour', points: perHour, durationSeconds: 3600 },
    { name: 'minute', points: perMinute, durationSeconds: 60 },
  ];
}
