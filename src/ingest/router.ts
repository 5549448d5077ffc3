import { ErrorRequestHandler, NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../logger';
import type { RateLimitDecision, RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitMessage, setRateLimitHeaders } from '../rateLimit/headers';
import type { GitActivityWriter } from '../services/git/writer';
import type { TaskWriter } from '../services/work/taskWriter';
import type { TaskSource } from '../services/work/taskInput';
import { GitAppWriter, INGEST_PROVIDERS, IngestProvider } from '../services/git/apps/gitApps';
import { addressedGitApp, authenticateDelivery, authenticateHead, sendsToken } from './auth';
import type { BodyBudget } from '../wire/bodyBudget';
import { bodyLimitOf, ingestBodyBudget, readRawBody } from './body';
import { parseDelivery } from './deliveries';
import { sendIngestError, toIngestAnswer, ingestAnswer } from './errors';
import { noteFailure } from '../observability/responseFailures';
import { DomainError, invalid, notFound } from '../errors';
import type { GitApp } from '../../db/models';

export interface IngestDeps {
  gitApps: GitAppWriter;
  activity: GitActivityWriter;
  /** Issues that are no incidents: tasks of their repository (docs/ingest.md#github-and-gitlab-issues). */
  tasks: TaskWriter;
  /** Per git app (failed authentications per client IP). */
  limiter: RateLimiter;
  bodyLimitBytes: number;
  logger: Logger;
  /** Told each delivery's provider and result once answered: applied, duplicate, ignored, pong, or the error code. */
  onDelivery?: (provider: IngestProvider, result: string) => void;
  /** Shared with the apps' ingest (src/ingest/apps/router.ts): the bodies this process holds at once. */
  budget?: BodyBudget;
}

/** The ingest surface's answer to anything thrown: its error format; our own faults logged and answered 500. */
export function ingestErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = toIngestAnswer(err);
    if (!known) logger.error({ err, reqId: req.id }, 'ingest delivery failed');
    noteFailure(res, err);
    const answer = known ?? ingestAnswer('SERVER_ERROR', 'Internal server error');
    res.locals.ingestResult = answer.code.toLowerCase();
    // Refused before its body ended (a wrong token, too large, no room): the rest is not read, the connection closes.
    if (!req.complete) res.setHeader('Connection', 'close');
    sendIngestError(res, answer);
  };
}

/** The header that names each provider's event: a delivery carrying another's was sent to the wrong URL. */
const EVENT_HEADERS: Record<IngestProvider, string> = { github: 'x-github-event', gitlab: 'x-gitlab-event', bitbucket: 'x-event-key' };

/**
 * Git activity in (docs/ingest.md), a transport beside the REST one: `POST /ingest/github/{git_app_id}`,
 * `POST /ingest/gitlab/{git_app_id}` and `POST /ingest/bitbucket/{git_app_id}`. It reads the raw body (the signature covers its bytes), authenticates the
 * delivery with the git app's secret, limits the git app, translates the payload and hands it to the git writer (or,
 * for an issue that is no incident, to the tracker writer).
 * The answer (200 stored or already stored, 202 ignored) comes once the change is committed.
 */
export function ingestRouter(deps: IngestDeps): Router {
  const router = Router();
  const budget = deps.budget ?? ingestBodyBudget(deps.bodyLimitBytes);
  router.post(
    '/:provider/:gitAppId',
    (req: Request, res: Response, next: NextFunction) => {
      const provider = req.params.provider as IngestProvider;
      if (!(INGEST_PROVIDERS as readonly string[]).includes(provider)) return next(unknownRoute(req));
      // Whatever the answer, once it is sent: the result the handlers or the error handler named.
      res.once('finish', () => deps.onDelivery?.(provider, String(res.locals.ingestResult ?? 'unknown')));
      const other = INGEST_PROVIDERS.find((p) => p !== provider && req.headers[EVENT_HEADERS[p]]);
      if (other) return next(invalid(`This is a ${other} delivery; send it to /ingest/${other}/${req.params.gitAppId}`));
      next();
    },
    // Nobody makes the process read a body for a git app that does not exist or cannot verify it; nor, where the
    // secret travels in a header (GitLab's), for a delivery without it.
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const gitApp = await addressedGitApp(req.params.provider as IngestProvider, String(req.params.gitAppId), deps.gitApps).catch(async (err: unknown) => {
          throw await limitedFailure(deps.limiter, req, res, err);
        });
        res.locals.gitApp = gitApp;
        if (sendsToken(gitApp)) await admitted(deps, gitApp, req, res, () => authenticateHead(gitApp, req.headers, deps.gitApps));
        next();
      } catch (err) {
        next(err);
      }
    },
    readRawBody(budget, (req) => bodyLimitOf(String(req.params.provider), deps.bodyLimitBytes)),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const gitApp = res.locals.gitApp as GitApp;
        if (!sendsToken(gitApp)) await admitted(deps, gitApp, req, res, () => authenticateDelivery(gitApp, req.headers, req.body as Buffer, deps.gitApps));
        const delivery = parseDelivery[gitApp.provider as IngestProvider](req);
        const answer = { delivery_id: delivery.id, event: delivery.event };
        if ('ignored' in delivery.outcome) {
          res.locals.ingestResult = 'ignored';
          return res.status(202).json({ status: 'success', data: { ...answer, result: 'ignored', reason: delivery.outcome.ignored } });
        }
        if ('ping' in delivery.outcome) {
          res.locals.ingestResult = 'pong';
          return res.status(200).json({ status: 'success', data: { ...answer, result: 'pong' } });
        }
        // An issue is a task (the tracker writer's) or activity (an incident), never both: each delivery goes to one
        // writer. Both record the delivery under the git app's id in the same table, so a redelivery is a duplicate
        // whichever writer took the first one.
        const outcome =
          'tasks' in delivery.outcome
            ? await deps.tasks.receive({ source: gitTaskSource(gitApp), id: delivery.id, event: delivery.event }, delivery.outcome.tasks)
            : await deps.activity.receive({ gitApp, id: delivery.id, event: delivery.event }, delivery.outcome.activity);
        res.locals.ingestResult = outcome.result;
        res.status(200).json({ status: 'success', data: { ...answer, ...outcome } });
      } catch (err) {
        next(err);
      }
    },
  );
  router.use((req: Request, _res: Response, next: NextFunction) => next(unknownRoute(req)));
  router.use(ingestErrorHandler(deps.logger));
  return router;
}

/** A git app's repositories' issues are tasks of its organization; people are matched by their linked user names. */
const gitTaskSource = (gitApp: GitApp): TaskSource => ({ appId: gitApp.id, organizationId: gitApp.organization_id, provider: gitApp.provider, accounts: 'git_app' });

/** Authentication, then the git app's rate limit; a failed authentication counts against the client IP instead. */
async function admitted(deps: IngestDeps, gitApp: GitApp, req: Request, res: Response, authenticate: () => Promise<void> | void): Promise<void> {
  try {
    await authenticate();
  } catch (err) {
    throw await limitedFailure(deps.limiter, req, res, err);
  }
  const decision = await deps.limiter.consume(`gapp:${gitApp.id}`);
  setRateLimitHeaders(res, decision);
  if (!decision.allowed) throw rateLimited(decision);
}

/** A refused delivery costs its client IP a point: guessing git apps, apps or secrets is limited like any traffic. */
export async function limitedFailure(limiter: RateLimiter, req: Request, res: Response, failure: unknown): Promise<unknown> {
  const decision = await limiter.consume(`ip:${req.ip}`);
  setRateLimitHeaders(res, decision);
  return decision.allowed ? failure : rateLimited(decision);
}

export const rateLimited = (d: RateLimitDecision) =>
  new DomainError('rate_limited', rateLimitMessage(d, 'deliveries'), { retryAfterSeconds: d.retryAfterSeconds });

const unknownRoute = (req: Request) =>
  notFound(`No ingest endpoint ${req.method} ${req.originalUrl.split('?')[0]}; webhooks go to POST /ingest/github/{git_app_id}, /ingest/gitlab/{git_app_id}, /ingest/bitbucket/{git_app_id} or /ingest/jira/{app_id}`);
