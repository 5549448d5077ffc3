import { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../logger';
import type { RateLimiter } from '../rateLimit/rateLimiter';
import { setRateLimitHeaders } from '../rateLimit/headers';
import type { IntegrationProvider, Webhook } from '../integrations/provider';
import type { BodyBudget } from '../wire/bodyBudget';
import { noteFailure } from '../observability/responseFailures';
import { DomainError, domainErrorOf, invalid, notFound } from '../errors';
import type { ConnectionStates, RefusalReason } from '../services/apps/connectionStates';
import { bodyLimitOf, ingestBodyBudget, readRawBody } from './body';
import { ingestAnswer, rateLimited, sendIngestError, toIngestAnswer } from './errors';
import { addressedConnection, Connection, connectionIdName, ConnectionStores, inactiveRefusal, limitKey, secretsOf, settingsOf, stateOwnerOf } from './connections';
import { DeliveryWriters, stored } from './stored';

export interface IngestDeps extends ConnectionStores, DeliveryWriters {
  /** Every provider the service connects to (src/integrations/registry.ts); those with a webhook are routed. */
  providers: readonly IntegrationProvider[];
  /** Per connection (failed authentications per client IP). */
  limiter: RateLimiter;
  bodyLimitBytes: number;
  logger: Logger;
  /** What the setup view shows of each connection: its deliveries answered without a change, and its refusals. */
  connectionStates: ConnectionStates;
  /** Told each delivery's provider and result once answered: applied, duplicate, ignored, pong, answered, or the error code. */
  onDelivery?: (provider: string, result: string) => void;
  /** The bodies this process holds at once. */
  budget?: BodyBudget;
  now?: () => Date;
}

/** A provider that takes deliveries, as the routes find it. */
type Receiver = IntegrationProvider & { webhook: Webhook };

/** What the steps of one delivery hand on, each set before the next step runs. */
interface DeliveryLocals {
  provider: Receiver;
  connection: Connection;
  /** The result the handlers or the error handler named, for `onDelivery`. */
  ingestResult?: string;
}

type DeliveryResponse = Response<unknown, DeliveryLocals>;

/**
 * Webhooks in (docs/ingest.md), a transport beside the REST one: `POST /ingest/{provider}/{connection id}[/{resource}]`
 * for every provider of the registry with a webhook. One pipeline for all: the provider is found and a delivery
 * meant for another one pointed there; the connection (a git app or an app) is found before any body is read; a
 * provider that sends the secret in a header is authenticated and limited before the body too; the body is read
 * within the provider's limit; a signed delivery is authenticated with the connection's secret (or the previous
 * one during a rotation's grace), then the connection is limited; the provider translates it, and the domain's
 * writer of its kind stores it. The answer (200 stored or already stored, 202 ignored) comes once it is committed.
 * The provider plugs in at two points: `webhook.authenticate` and `webhook.parse`.
 */
export function ingestRouter(deps: IngestDeps): Router {
  const router = Router();
  const budget = deps.budget ?? ingestBodyBudget(deps.bodyLimitBytes);
  const now = deps.now ?? (() => new Date());
  const receivers = new Map(deps.providers.filter(receives).map((p) => [p.id, p]));
  const receive = [
    (req: Request, res: DeliveryResponse, next: NextFunction) => {
      const provider = receivers.get(String(req.params.provider));
      if (!provider) return next(unknownRoute(req, receivers));
      res.locals.provider = provider;
      res.once('finish', () => deps.onDelivery?.(provider.id, String(res.locals.ingestResult ?? 'unknown')));
      next(misdirected(provider, receivers, req) ?? unknownResource(provider, resourceOf(req)));
    },
    async (req: Request, res: DeliveryResponse, next: NextFunction) => {
      try {
        const { provider } = res.locals;
        const connection = await addressedConnection(provider, String(req.params.connectionId), deps).catch(async (err: unknown) => {
          throw await limitedFailure(deps.limiter, req, res, err);
        });
        res.locals.connection = connection;
        const { authenticate } = provider.webhook;
        if ('head' in authenticate) await admitted(deps, connection, req, res, () => authenticate.head(req.headers, secretsOf(connection, deps, now())));
        next();
      } catch (err) {
        next(err);
      }
    },
    // The route found the provider: its limit is known before a byte is read.
    readRawBody(budget, (req) => {
      const provider = receivers.get(String(req.params.provider));
      return bodyLimitOf(String(req.params.provider), provider?.webhook.bodyLimitBytes ?? deps.bodyLimitBytes, deps.bodyLimitBytes);
    }),
    async (req: Request, res: DeliveryResponse, next: NextFunction) => {
      try {
        const { provider, connection } = res.locals;
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const { authenticate } = provider.webhook;
        if ('body' in authenticate) {
          const at = now();
          await admitted(deps, connection, req, res, () => authenticate.body(req.headers, body, secretsOf(connection, deps, at), at));
        }
        const delivery = provider.webhook.parse({ headers: req.headers, body, resource: resourceOf(req), settings: settingsOf(connection) });
        const answer = { ...(delivery.id === null ? {} : { delivery_id: delivery.id }), event: delivery.event };
        if ('ignored' in delivery || 'ping' in delivery || 'reply' in delivery) await deps.connectionStates.acknowledged(stateOwnerOf(connection), delivery.event, now());
        if ('ignored' in delivery) {
          res.locals.ingestResult = 'ignored';
          return res.status(202).json({ status: 'success', data: { ...answer, result: 'ignored', reason: delivery.ignored } });
        }
        if ('ping' in delivery) {
          res.locals.ingestResult = 'pong';
          return res.status(200).json({ status: 'success', data: { ...answer, result: 'pong' } });
        }
        if ('reply' in delivery) {
          res.locals.ingestResult = 'answered';
          return res.status(200).json(delivery.reply);
        }
        const outcome = await stored(deps, connection, delivery);
        deps.connectionStates.stored(stateOwnerOf(connection).connectionId);
        res.locals.ingestResult = outcome.result;
        res.status(200).json({ status: 'success', data: { ...answer, ...outcome } });
      } catch (err) {
        next(err);
      }
    },
  ];
  router.post('/:provider/:connectionId', ...receive);
  router.post('/:provider/:connectionId/:resource', ...receive);
  router.use((req: Request, _res: Response, next: NextFunction) => next(unknownRoute(req, receivers)));
  router.use(ingestErrorHandler(deps, now));
  return router;
}

const receives = (provider: IntegrationProvider): provider is Receiver => provider.webhook !== undefined;

/** A delivery that carries another provider's event header was sent to the wrong URL: 400 saying where it goes. */
function misdirected(provider: Receiver, receivers: Map<string, Receiver>, req: Request): DomainError | undefined {
  const other = [...receivers.values()].find((p) => p !== provider && p.webhook.eventHeader !== undefined && req.headers[p.webhook.eventHeader] !== undefined);
  if (!other) return undefined;
  const sameKind = (other.category === 'git') === (provider.category === 'git');
  const where = sameKind ? `/ingest/${other.id}/${req.params.connectionId}` : `/ingest/${other.id}/${connectionIdName(other)} of a ${other.name} ${other.category === 'git' ? 'git app' : 'app'}`;
  return invalid(`This is a ${other.id} delivery; send it to ${where}`);
}

/** A path's resource segment, where the provider takes none or another (404 saying which it takes). */
function unknownResource(provider: Receiver, resource: string | undefined): DomainError | undefined {
  const taken = provider.webhook.resources ?? [];
  if (resource === undefined ? taken.length === 0 : taken.includes(resource)) return undefined;
  const base = `/ingest/${provider.id}/${connectionIdName(provider)}`;
  return notFound(`No such path: ${provider.id} deliveries go to ${taken.length ? taken.map((r) => `${base}/${r}`).join(' or ') : base}`);
}

/** The path's segment after the connection id, when it has one. */
const resourceOf = (req: Request): string | undefined => (typeof req.params.resource === 'string' ? req.params.resource : undefined);

const unknownRoute = (req: Request, receivers: Map<string, Receiver>) =>
  notFound(
    `No ingest endpoint ${req.method} ${req.originalUrl.split('?')[0]}; webhooks go to POST ${[...receivers.values()].map((p) => `/ingest/${p.id}/${connectionIdName(p)}`).join(', ')}`,
  );

/** Authentication, then whether the connection takes deliveries, then its rate limit; a failed authentication costs the client IP. */
async function admitted(deps: IngestDeps, connection: Connection, req: Request, res: Response, authenticate: () => Promise<void> | void): Promise<void> {
  try {
    await authenticate();
  } catch (err) {
    throw await limitedFailure(deps.limiter, req, res, err);
  }
  const refusal = inactiveRefusal(connection);
  if (refusal) throw refusal;
  const decision = await deps.limiter.consume(limitKey(connection));
  setRateLimitHeaders(res, decision);
  if (!decision.allowed) throw rateLimited(decision);
}

/** A refused delivery costs its client IP a point: guessing connections or secrets is limited like any traffic. */
async function limitedFailure(limiter: RateLimiter, req: Request, res: Response, failure: unknown): Promise<unknown> {
  const decision = await limiter.consume(`ip:${req.ip}`);
  setRateLimitHeaders(res, decision);
  return decision.allowed ? failure : rateLimited(decision);
}

/**
 * Why a delivery to a known connection was refused, as the setup view says it; undefined for what is not the sender's
 * to fix (our faults, a race lost). Only the kind of failure is kept: its message may quote what was sent.
 */
function refusalReason(provider: Receiver, err: unknown): RefusalReason | undefined {
  switch (domainErrorOf(err)?.kind) {
    case 'unauthenticated':
      return 'head' in provider.webhook.authenticate ? 'token' : 'signature';
    case 'forbidden':
      return 'inactive';
    case 'rate_limited':
      return 'rate_limited';
    case 'too_large':
      return 'too_large';
    case 'invalid':
    case 'unsupported_media_type':
      return 'bad_body';
    default:
      return undefined;
  }
}

/**
 * The ingest surface's answer to anything thrown: its error format; our own faults logged and answered 500. A refusal
 * of a delivery to a known connection is recorded for the setup view first; one to an unknown id has no one to tell.
 */
function ingestErrorHandler(deps: IngestDeps, now: () => Date) {
  // Locals as far as the delivery got: a route not found has neither provider nor connection.
  return async (err: unknown, req: Request, res: Response<unknown, Partial<DeliveryLocals>>, _next: NextFunction) => {
    const { provider, connection } = res.locals;
    const reason = provider && connection && refusalReason(provider, err);
    // Only for the setup view: a database that cannot take the note must not cost the sender its answer, nor the
    // process its life (an async error handler's rejection is no one's to catch).
    if (connection && reason) {
      await deps.connectionStates.refused(stateOwnerOf(connection), reason, now()).catch((failure: unknown) => deps.logger.warn({ err: failure, reqId: req.id }, 'could not record a refused delivery for the setup view'));
    }
    const known = toIngestAnswer(err);
    if (!known) deps.logger.error({ err, reqId: req.id }, 'ingest delivery failed');
    noteFailure(res, err);
    const answer = known ?? ingestAnswer('SERVER_ERROR', 'Internal server error');
    res.locals.ingestResult = answer.code.toLowerCase();
    // Refused before its body ended (a wrong token, too large, no room): the rest is not read, the connection closes.
    if (!req.complete) res.setHeader('Connection', 'close');
    sendIngestError(res, answer);
  };
}
