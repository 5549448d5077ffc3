import { forEachOpenApiProcedure, type OpenApiRouter } from 'trpc-to-openapi';
import { appRouter } from '../../src/procedures';
import { createCallerFactory } from '../../src/procedures/init';
import { Authenticator } from '../../src/auth/authenticator';
import type { TestApp } from './harness';
import type { Body } from './assertions';

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

type Call = (input: Record<string, string>) => Promise<Body>;

/** Each documented GET path template, as a pattern with its parameter names, and the procedure that serves it. */
const ROUTES: { name: string; params: string[]; pattern: RegExp }[] = [];
const documented: OpenApiRouter = appRouter;
forEachOpenApiProcedure(documented._def.procedures, ({ path: name, meta }) => {
  const params: string[] = [];
  const source = meta.openapi.path.replace(/\{(\w+)\}/g, (_, param: string) => (params.push(param), '([^/]+)'));
  ROUTES.push({ name, params, pattern: new RegExp(`^/v1${source}$`) });
});

/**
 * Reads a REST path (`/v1/teams/team_platform/tasks?sort=title`) by calling the procedure that serves it, with
 * the path parameters and query as its input, exactly as trpc-to-openapi would pass them: tests keep the paths
 * a reader knows, and what they check is the procedure, not the transport.
 */
export async function readThroughCaller(t: TestApp, token: string, path: string): Promise<Body> {
  const url = new URL(path, 'http://caller.invalid');
  const route = ROUTES.find((r) => r.pattern.test(url.pathname));
  if (!route) throw new Error(`no procedure serves ${url.pathname}`);
  const values = route.pattern.exec(url.pathname)!.slice(1).map(decodeURIComponent);
  const input: Record<string, string> = Object.fromEntries(url.searchParams);
  route.params.forEach((param, i) => (input[param] = values[i]));
  const procedure = route.name.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], await callerFor(t, token));
  return (procedure as Call)(input);
}
