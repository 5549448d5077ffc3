import { appRouter } from '../../src/procedures';
import { createCallerFactory } from '../../src/trpc/init';
import { Authenticator } from '../../src/auth/authenticator';
import type { TestApp } from './harness';

const createCaller = createCallerFactory(appRouter);

/**
 * The procedures as the token's user calls them, without HTTP: for tests of what a procedure computes, where the
 * wire adds nothing (the wire has tests of its own: envelopes, status codes, headers, query strings).
 */
export async function callerFor(t: TestApp, token: string) {
  const authenticator = new Authenticator({ cacheTtlMs: 0, lastUsedIntervalMs: 60_000, onBackgroundError: () => undefined });
  const principal = await authenticator.authenticate(`Bearer ${token}`);
  return createCaller({ principal, services: t.runtime.services, queryProblems: [] });
}
