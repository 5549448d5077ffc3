import type { NextFunction, Request, Response } from 'express';
import { DomainError, domainErrorOf, invalid, unauthenticated } from '../errors';
import type { Authenticator } from '../auth/authenticator';
import type { SessionAuthenticator } from '../auth/sessionAuthenticator';
import { CSRF_HEADER, crossSiteRefusal, readCookie, SESSION_COOKIE } from '../auth/sessionCookies';
import type { RateLimitDecision, RateLimiter } from '../rateLimit/rateLimiter';
import type { RequestContext } from '../procedures/context';
import { MAX_TRPC_BATCH } from '../wire/limits';
import { rateLimitMessage, setRateLimitHeaders } from '../rateLimit/headers';
import { decodedPath, hasControlCharacters } from '../wire/text';

declare module 'express-serve-static-core' {
  interface Request {
    apiContext?: RequestContext;
  }
}

export interface GateDeps {
  authenticator: Authenticator;
  /** Signed-in browsers, for `settings.*` and `dashboards.*` calls only. */
  sessions: SessionAuthenticator;
  /** The origin of PUBLIC_URL: where the settings page is served from. */
  publicOrigin: string;
  limiter: RateLimiter;
  services: RequestContext['services'];
}

export function rateLimited(d: RateLimitDecision): DomainError {
  return new DomainError('rate_limited', rateLimitMessage(d), { retryAfterSeconds: d.retryAfterSeconds });
}

/** A name an ordinary object cannot hold as its own key (`__proto__`) never reaches the schemas' strict check. */
function isUnholdableKey(name: string): boolean {
  const probe: Record<string, unknown> = {};
  probe[name] = true;
  return !Object.prototype.hasOwnProperty.call(probe, name);
}

/**
 * Mistakes the parsed input cannot show: empty and repeated parameters (otherwise dropped, or arrays with a
 * vague message) and names the query parser cannot carry as keys (otherwise silently ignored).
 */
function queryProblems(url: URL): string[] {
  const params = [...url.searchParams];
  const names = (list: string[]) => [...new Set(list)].map((k) => `'${k}'`).join(', ');
  const unholdable = params.map(([k]) => k).filter(isUnholdableKey);
  const empty = params.filter(([, v]) => v.trim() === '').map(([k]) => k);
  const seen = new Set<string>();
  const repeated = params.map(([k]) => k).filter((k) => seen.has(k) || !seen.add(k));
  const problems: string[] = [];
  if (unholdable.length) problems.push(`Unknown query parameter(s): ${names(unholdable)}`);
  if (empty.length) problems.push(`Query parameter(s) ${names(empty)} must not be empty; give a value or leave them out`);
  if (repeated.length) problems.push(`Query parameter(s) ${names(repeated)} must be given only once`);
  return problems;
}

/** A URL whose decoded path or parameters hold control characters (a NUL, a line feed): refused before any lookup. */
function controlCharacterProblems(url: URL): string[] {
  const texts = [decodedPath(url.pathname) ?? '', ...[...url.searchParams].flat()];
  return texts.some(hasControlCharacters) ? ['The URL must not contain control characters (%00 to %1F, %7F); remove them from the path and parameters'] : [];
}

/**
 * The procedures a /trpc request calls: `/trpc/a,b,c?batch=1` is three. Read exactly as tRPC reads it (the first
 * `batch` value, the last path segment decoded), so `?batch=1&batch=1` or `%2C` cannot hide calls.
 */
function trpcCallNames(req: Request): string[] {
  const url = new URL(req.originalUrl, 'http://localhost');
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // a malformed escape: tRPC refuses the request anyway
  }
  return url.searchParams.get('batch') === '1' ? decoded.split(',') : [decoded];
}

/** The procedures of the service's own pages, which take the signed-in session: the settings and the dashboards. */
const SESSION_PREFIXES = ['settings.', 'dashboards.'];
const takesSession = (name: string) => SESSION_PREFIXES.some((prefix) => name.startsWith(prefix));

/** Which credentials a /trpc request's calls take: all the pages' a session, none an API token; both is a mistake. */
function credentialsFor(names: string[]): 'session' | 'token' | 'mixed' {
  const session = names.filter(takesSession).length;
  return session === 0 ? 'token' : session === names.length ? 'session' : 'mixed';
}

interface Charge {
  key: string;
  decision: RateLimitDecision;
}

/** What the gate charged, so a response that turns out free (a 304) can give its point back. */
const charges = new WeakMap<Response, Charge>();

/**
 * Gives back the one point a request was charged and reports the tier as it was before the request. Both
 * tiers get the point, so the tier with the fewest requests left stays the reported one.
 */
export async function refundPoint(limiter: RateLimiter, res: Response): Promise<void> {
  const charge = charges.get(res);
  if (!charge || !charge.decision.allowed) return;
  charges.delete(res);
  await limiter.reward(charge.key, 1);
  res.setHeader('X-RateLimit-Remaining', String(Math.min(charge.decision.limit, charge.decision.remaining + 1)));
}

type Transport = 'rest' | 'trpc';

/**
 * Authenticates and rate-limits every request under /v1 and /trpc, sets the X-RateLimit-* headers, and leaves
 * its verdict on `req.apiContext` for the procedures (or the 404 handler) to enforce. Callers are limited per
 * user; failed authentications per client IP. A /trpc batch costs one point per call; one larger than
 * MAX_TRPC_BATCH is refused whole (one point).
 */
export function requestGate(deps: GateDeps, transport: Transport) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const url = new URL(req.originalUrl, 'http://localhost');
    const context: RequestContext = {
      services: deps.services,
      queryProblems: [...controlCharacterProblems(url), ...(transport === 'rest' ? queryProblems(url) : [])],
    };
    try {
      const names = transport === 'trpc' ? trpcCallNames(req) : ['rest'];
      const credentials = credentialsFor(names);
      const caller =
        credentials === 'mixed'
          ? { failure: invalid('A /trpc batch cannot mix settings.* or dashboards.* calls (signed-in session) with other calls (API token); send them separately') }
          : credentials === 'session'
            ? await settingsCaller(deps, req, context)
            : await tokenCaller(deps, req, context);
      const calls = names.length;
      const oversized = calls > MAX_TRPC_BATCH;
      // A person's pages (settings, dashboards) have a budget apart from their API tokens': a script using up the
      // one never locks them out of the other.
      const key = caller.userId ? `${credentials === 'session' ? 'pages' : 'user'}:${caller.userId}` : `ip:${req.ip}`;
      // A credential that could not be checked (the database out of reach) is no failed authentication: the client's
      // IP is not charged for the 503, else everyone behind one address would meet 429s once the database is back.
      const unchecked = domainErrorOf(caller.failure)?.detail.outage !== undefined;
      const decision = await deps.limiter.consume(key, unchecked ? 0 : oversized ? 1 : calls);
      setRateLimitHeaders(res, decision);
      charges.set(res, { key, decision });
      context.gateError = !decision.allowed
        ? rateLimited(decision)
        : (caller.failure ?? (oversized ? invalid(`A /trpc batch may hold at most ${MAX_TRPC_BATCH} calls; this one has ${calls}. Split it into smaller batches`) : undefined));
      req.apiContext = context;
      next();
    } catch (err) {
      next(err);
    }
  };
}

interface Caller {
  userId?: string;
  /** Why the caller is not authenticated (a 401, or a batch no credentials can serve). */
  failure?: unknown;
}

/** An API client: the bearer token's principal. A session cookie never authorizes these calls. */
async function tokenCaller(deps: GateDeps, req: Request, context: RequestContext): Promise<Caller> {
  try {
    context.principal = await deps.authenticator.authenticate(req.headers.authorization);
    return { userId: context.principal.userId };
  } catch (failure) {
    return { failure };
  }
}

/** A signed-in browser on `settings.*` or `dashboards.*`: its session, and whether it may change anything (same origin, CSRF token). */
async function settingsCaller(deps: GateDeps, req: Request, context: RequestContext): Promise<Caller> {
  if (req.headers.authorization !== undefined) {
    return { failure: unauthenticated('settings.* and dashboards.* take the signed-in session of the service\'s pages (sign in at /auth/login), not an API token; leave the Authorization header out') };
  }
  try {
    const { session, principal } = await deps.sessions.authenticate(readCookie(req.headers.cookie, SESSION_COOKIE));
    const header = req.headers[CSRF_HEADER];
    const mutationRefusal = crossSiteRefusal(
      { origin: req.headers.origin, ownOrigin: `${req.protocol}://${req.get('host')}`, csrfToken: typeof header === 'string' ? header : undefined },
      deps.publicOrigin,
      session.csrfToken,
    );
    context.settings = { session, principal, mutationRefusal };
    return { userId: session.userId };
  } catch (failure) {
    // A refusal, or the session store out of reach: either is answered by the procedure, in its surface's format.
    if (domainErrorOf(failure)) return { failure };
    throw failure;
  }
}

/**
 * The public OpenAPI document: no token, limited per client IP on a budget of its own, so fetching it
 * neither spends nor is starved by the budget of failed authentications.
 */
export function publicDocumentGate(limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const key = `document:ip:${req.ip}`;
      const decision = await limiter.consume(key);
      setRateLimitHeaders(res, decision);
      charges.set(res, { key, decision });
      if (!decision.allowed) throw rateLimited(decision);
      next();
    } catch (err) {
      next(err);
    }
  };
}
