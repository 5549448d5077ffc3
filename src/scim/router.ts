import express, { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../logger';
import type { RateLimiter } from '../rateLimit/rateLimiter';
import type { MemberWriter } from '../services/people/members';
import type { Directory } from '../services/people/directory';
import type { TeamWriter } from '../services/people/teams';
import { rateLimitMessage, setRateLimitHeaders } from '../rateLimit/headers';
import type { ScimAuthenticator } from '../auth/scimAuthenticator';
import { resourceTypes, schemas, serviceProviderConfig, listResponse } from './discovery';
import { ScimError, scimErrorBody, toScimError } from './errors';
import { noteFailure } from '../observability/responseFailures';
import { sendScim, setCaller } from './respond';
import { scimUsers } from './users';
import { scimResourceRouter } from './resourceRouter';
import { containsNul, decodedPath, hasControlCharacters } from '../wire/text';
import { scimGroups } from './groups';

export interface ScimDeps {
  authenticator: ScimAuthenticator;
  /** Per SCIM token (failed authentications per client IP), with tiers of its own: an initial sync is large. */
  limiter: RateLimiter;
  members: MemberWriter;
  teams: TeamWriter;
  directory: Directory;
  /** `PUBLIC_URL` + `/scim/v2`: the base of every `meta.location`. */
  base: string;
  bodyLimitBytes: number;
  logger: Logger;
}

/**
 * The SCIM 2.0 surface (docs/scim.md), a transport beside the REST one: it authenticates the organization's
 * SCIM token, limits it, parses `application/scim+json`, and hands each change to the domain writers.
 * Every answer, errors included, is SCIM JSON.
 */
export function scimRouter(deps: ScimDeps): Router {
  const router = Router();

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    let failure: unknown;
    let caller;
    try {
      caller = await deps.authenticator.authenticate(req.headers.authorization);
    } catch (err) {
      failure = err;
    }
    try {
      const decision = await deps.limiter.consume(caller ? `token:${caller.tokenId}` : `ip:${req.ip}`);
      setRateLimitHeaders(res, decision);
      if (!decision.allowed) {
        throw new ScimError(429, undefined, rateLimitMessage(decision));
      }
      if (failure) throw failure;
      setCaller(req, caller!);
      next();
    } catch (err) {
      next(err);
    }
  });
  router.use(express.json({ type: ['application/scim+json', 'application/json'], limit: deps.bodyLimitBytes }));
  router.use(refuseControlCharacters);
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const writes = req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH';
    if (writes && !req.is(['application/scim+json', 'application/json'])) {
      next(new ScimError(415, undefined, `Send the body as application/scim+json (got ${req.headers['content-type'] ?? 'no Content-Type'})`));
    } else next();
  });

  router.get('/ServiceProviderConfig', (_req, res) => sendScim(res, 200, serviceProviderConfig(deps.base)));
  router.get('/ResourceTypes', (_req, res) => {
    const all = resourceTypes(deps.base);
    sendScim(res, 200, listResponse(all, all.length, 1));
  });
  router.get('/ResourceTypes/:id', (req, res) => {
    const found = resourceTypes(deps.base).find((r) => r.id === req.params.id);
    if (!found) throw new ScimError(404, undefined, `No resource type ${req.params.id}; this service has User and Group`);
    sendScim(res, 200, found);
  });
  router.get('/Schemas', (_req, res) => {
    const all = schemas(deps.base);
    sendScim(res, 200, listResponse(all, all.length, 1));
  });
  router.get('/Schemas/:id', (req, res) => {
    const found = schemas(deps.base).find((s) => s.id === req.params.id);
    if (!found) throw new ScimError(404, undefined, `No schema ${req.params.id}`);
    sendScim(res, 200, found);
  });
  router.use('/Users', scimResourceRouter(scimUsers(deps.members, deps.directory, deps.base), deps.base));
  router.use('/Groups', scimResourceRouter(scimGroups(deps.teams, deps.directory, deps.base), deps.base));
  router.all(['/Bulk', '/Me', '/Me/*rest'], () => {
    throw new ScimError(501, undefined, 'Not supported by this service (see ServiceProviderConfig)');
  });
  router.use((req: Request) => {
    throw new ScimError(404, undefined, `No SCIM endpoint ${req.method} ${req.originalUrl.split('?')[0]}; see /scim/v2/ResourceTypes`);
  });

  router.use(scimErrorHandler(deps.logger));
  return router;
}

/** The SCIM surface's last handler: anything thrown becomes an RFC 7644 error; our own faults are logged, never shown. */
export function scimErrorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const scim = toScimError(err);
    if (!scim) logger.error({ err, reqId: req.id }, 'SCIM request failed');
    noteFailure(res, err);
    const answer = scim ?? new ScimError(500, undefined, 'Internal server error');
    if (answer.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
    if (answer.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(answer.retryAfterSeconds))));
    sendScim(res, answer.status, scimErrorBody(answer));
  };
}

/**
 * Control characters at the edge: in the path no resource has them (404), in a parameter they are a mistake (400),
 * and no attribute of a body may hold a NUL (400); attributes refuse the other control characters themselves.
 */
function refuseControlCharacters(req: Request, _res: Response, next: NextFunction): void {
  const url = new URL(req.originalUrl, 'http://localhost');
  if (hasControlCharacters(decodedPath(url.pathname) ?? '')) {
    return next(new ScimError(404, undefined, 'No SCIM resource at this path: ids hold no control characters (such as %00)'));
  }
  const parameter = [...url.searchParams].find(([name, value]) => hasControlCharacters(name) || hasControlCharacters(value));
  if (parameter) {
    const scimType = parameter[0].toLowerCase() === 'filter' ? 'invalidFilter' : 'invalidValue';
    return next(new ScimError(400, scimType, `Query parameter '${parameter[0]}' must not contain control characters (such as %00)`));
  }
  if (containsNul(req.body)) return next(new ScimError(400, 'invalidValue', 'The body holds a NUL character (\\u0000); no attribute may contain one'));
  next();
}

