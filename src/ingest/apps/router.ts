import { NextFunction, Request, Response, Router } from 'express';
import type { App } from '../../../db/models';
import type { Logger } from '../../logger';
import type { RateLimiter } from '../../rateLimit/rateLimiter';
import { setRateLimitHeaders } from '../../rateLimit/headers';
import type { AppWriter } from '../../services/apps/apps';
import { isAppProvider } from '../../services/apps/providers';
import type { TaskWriter } from '../../services/work/taskWriter';
import type { OperationResult, OperationsWriter } from '../../services/operations/operationsWriter';
import type { ConversationWriter } from '../../services/activity/conversations';
import { DomainError, invalid, notFound, unauthenticated } from '../../errors';
import { hasControlCharacters } from '../../wire/text';
import type { BodyBudget } from '../../wire/bodyBudget';
import { bodyLimitOf, ingestBodyBudget, readRawBody } from '../body';
import { ingestErrorHandler, limitedFailure, rateLimited } from '../router';
import type { AppWebhooks, ParsedAppDelivery } from './appDelivery';
import { APP_WEBHOOKS } from './providers';

export interface AppIngestDeps {
  apps: AppWriter;
  tasks: TaskWriter;
  operations: OperationsWriter;
  conversations: ConversationWriter;
  /** Per app (failed authentications per client IP): the git ingest's limiter, so an IP has one budget. */
  limiter: RateLimiter;
  bodyLimitBytes: number;
  /** The git ingest's budget, so the process holds no more bodies at once than it planned for. */
  budget?: BodyBudget;
  logger: Logger;
  /** Told each delivery's provider and result once answered: applied, duplicate, ignored, or the error code. */
  onDelivery?: (provider: string, result: string) => void;
  now?: () => Date;
}

/**
 * The apps' deliveries in (docs/trackers.md#trackers): `POST /ingest/{provider}/{app_id}` for every provider of
 * APP_WEBHOOKS, beside the git ingest (the other providers pass through to it). As there: the app is found and
 * its provider checked before any body is read; a provider that sends the secret in a header (Opsgenie, the
 * deployments API) is authenticated and limited before it too; the body is read within the provider's limit; a
 * signed delivery is authenticated with the app's secret (or the previous one during a rotation's grace), then the
 * app is limited; the provider's webhooks translate it and the task writer stores it, a redelivery changing nothing.
 */
export function appIngestRouter(deps: AppIngestDeps): Router {
  const router = Router();
  const budget = deps.budget ?? ingestBodyBudget(deps.bodyLimitBytes);
  const now = deps.now ?? (() => new Date());
  const receive = [
    (req: Request, res: Response, next: NextFunction) => {
      const provider = String(req.params.provider);
      const webhooks = isAppProvider(provider) ? APP_WEBHOOKS[provider] : undefined;
      if (!webhooks) return next('router');
      res.locals.webhooks = webhooks;
      res.once('finish', () => deps.onDelivery?.(provider, String(res.locals.ingestResult ?? 'unknown')));
      const misdirected = Object.entries(webhooks.otherProviders ?? {}).find(([name]) => req.headers[name] !== undefined);
      if (misdirected) return next(invalid(`This is a ${misdirected[1]} delivery, not a ${provider} one; send it to /ingest/${misdirected[1]}/{app_id} of a ${misdirected[1]} app`));
      next(unknownResource(provider, webhooks, resourceOf(req)));
    },
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const app = await addressedApp(String(req.params.provider), String(req.params.appId), deps.apps).catch(async (err: unknown) => {
          throw await limitedFailure(deps.limiter, req, res, err);
        });
        res.locals.app = app;
        const webhooks = res.locals.webhooks as AppWebhooks;
        if ('authenticateHead' in webhooks) await admitted(deps, app, req, res, () => webhooks.authenticateHead(req.headers, deps.apps.secretsOf(app, now())));
        next();
      } catch (err) {
        next(err);
      }
    },
    readRawBody(budget, (req) => bodyLimitOf(String(req.params.provider), deps.bodyLimitBytes)),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const app = res.locals.app as App;
        const webhooks = res.locals.webhooks as AppWebhooks;
        if ('authenticate' in webhooks) {
          const at = now();
          await admitted(deps, app, req, res, () => webhooks.authenticate(req.headers, req.body as Buffer, deps.apps.secretsOf(app, at), at));
        }
        const delivery = webhooks.parse(req.headers, req.body as Buffer, app, resourceOf(req));
        const answer = { ...(delivery.id === null ? {} : { delivery_id: delivery.id }), event: delivery.event };
        if ('ignored' in delivery) {
          res.locals.ingestResult = 'ignored';
          return res.status(202).json({ status: 'success', data: { ...answer, result: 'ignored', reason: delivery.ignored } });
        }
        if ('reply' in delivery) {
          res.locals.ingestResult = 'answered';
          return res.status(200).json(delivery.reply);
        }
        const outcome = await stored(deps, app, delivery);
        res.locals.ingestResult = outcome.result;
        res.status(200).json({ status: 'success', data: { ...answer, ...outcome } });
      } catch (err) {
        next(err);
      }
    },
  ];
  router.post('/:provider/:appId', ...receive);
  router.post('/:provider/:appId/:resource', ...receive);
  router.use(ingestErrorHandler(deps.logger));
  return router;
}

/** A path's resource segment, where the provider takes none or another (404 saying which it takes). */
function unknownResource(provider: string, webhooks: AppWebhooks, resource: string | undefined): DomainError | undefined {
  const taken = webhooks.resources ?? [];
  if (resource === undefined ? taken.length === 0 : taken.includes(resource)) return undefined;
  const paths = taken.length ? taken.map((r) => `/ingest/${provider}/{app_id}/${r}`).join(' or ') : `/ingest/${provider}/{app_id}`;
  return notFound(`No such path: ${provider} deliveries go to ${paths}`);
}

/** Stores what a delivery brought through the writer of its kind. */
async function stored(deps: AppIngestDeps, app: App, delivery: Exclude<ParsedAppDelivery, { ignored: string } | { reply: Record<string, string> }>) {
  if ('messages' in delivery) {
    return deps.conversations.receive({ source: { appId: app.id, organizationId: app.organization_id, provider: app.provider }, id: delivery.id, event: delivery.event }, delivery.messages);
  }
  if ('tasks' in delivery) {
    const source = { appId: app.id, organizationId: app.organization_id, provider: app.provider, accounts: 'app' as const };
    return deps.tasks.receive({ source, id: delivery.id, event: delivery.event }, delivery.tasks);
  }
  const source = { appId: app.id, organizationId: app.organization_id };
  const { result, items } = await deps.operations.receive({ source, id: delivery.id, event: delivery.event }, delivery.operations);
  const of = (kind: OperationResult['kind']) => items.filter((i) => i.kind === kind).map(({ kind: _, ...item }) => item);
  return { result, incidents: of('incident'), deployments: of('deployment') };
}

/** The path's segment after the app id, when it has one. */
const resourceOf = (req: Request): string | undefined => (typeof req.params.resource === 'string' ? req.params.resource : undefined);

/** The app the URL names, when it takes this provider's deliveries and has a secret; before any body is read. */
async function addressedApp(provider: string, appId: string, apps: AppWriter): Promise<App> {
  // An id with a control character is nobody's, and is not looked up.
  const app = hasControlCharacters(appId) ? null : await apps.find(appId);
  if (!app) throw notFound(`App not found: ${JSON.stringify(appId)} (see npm run apps -- list)`);
  if (app.provider !== provider) throw invalid(`App ${app.id} is a ${app.provider} app; send its deliveries to /ingest/${app.provider}/${app.id}`);
  if (!app.webhook_secret) throw unauthenticated(`App ${app.id} has no webhook secret yet: store the one its provider made (Linear, Slack and PagerDuty make their own) with npm run apps -- set-secret --app ${app.id} --secret-file <file>, or make one with npm run apps -- rotate-secret ${app.id}`);
  return app;
}

/** Authentication, then whether the app takes deliveries, then its rate limit; a failed authentication costs the client IP. */
async function admitted(deps: AppIngestDeps, app: App, req: Request, res: Response, authenticate: () => void): Promise<void> {
  try {
    authenticate();
  } catch (err) {
    throw await limitedFailure(deps.limiter, req, res, err);
  }
  if (!app.is_active) throw new DomainError('forbidden', `App ${app.id} is disabled; deliveries to it are refused until npm run apps -- enable ${app.id}`);
  const decision = await deps.limiter.consume(`app:${app.id}`);
  setRateLimitHeaders(res, decision);
  if (!decision.allowed) throw rateLimited(decision);
}
