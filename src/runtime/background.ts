import type { Sequelize } from 'sequelize';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { ChangeRunner } from '../persistence/changes/change';
import type { SecretBox } from '../secrets/secretBox';
import type { ProviderCatalog } from '../services/apps/catalog';
import { DeliveryQueue } from '../services/webhooks/deliveryQueue';
import { DeliveryWorker } from '../delivery/worker';
import { outboundPolicy } from '../outbound/outboundFetch';
import type { ServiceMetrics } from '../observability/serviceMetrics';
import { eraseDeletedRepositories } from '../services/git/repositories/deletedRepositories';
import { Pruner } from '../services/retention/pruner';
import { retentionPolicies } from '../services/retention/policies';
import { VendorPullSchedule } from '../services/aiVendors/pullSchedule';
import { VendorPulls } from '../services/aiVendors/vendorPulls';
import { defaultHttp, ProviderHttp } from '../outbound/providerHttp';
import { ConnectionCredentials } from '../services/apps/credentials';
import { ConversationWriter } from '../services/activity/conversations';
import { GitActivityWriter } from '../services/git/writer';
import type { BatchLimits } from '../services/history/historyBatches';
import { HistoryImports } from '../services/history/historyImport';
import { HistoryCatchUp } from '../services/history/historySchedule';
import { OperationsWriter } from '../services/operations/operationsWriter';
import { TaskWriter } from '../services/work/taskWriter';
import { Recomputations } from '../services/metrics/settings/recomputation';

// The work every process does besides serving: each API instance and `npm run worker` (scripts/worker.ts) build it here.

/** The outgoing webhook worker of a process (an API instance or `npm run worker`), woken by this process's own changes. */
export function createDeliveryWorker(config: Config, logger: Logger, changes: ChangeRunner, secrets: SecretBox, metrics?: ServiceMetrics): DeliveryWorker {
  const queue = new DeliveryQueue(changes, secrets, config.WEBHOOK_RETRY_DELAYS);
  const worker = new DeliveryWorker(queue, logger, {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    outbound: outboundPolicy(config),
    onAttempt: metrics && ((result) => metrics.webhookAttempted(result)),
  });
  changes.onCommitted(({ deliveries }) => {
    if (deliveries) worker.wake();
  });
  return worker;
}

/**
 * The retention pruner of a process (an API instance or `npm run worker`): every growing table, once an hour, the
 * first a minute after start, then the repositories whose grace after a deletion has passed. Several processes may
 * prune at once: they take disjoint rows, and a repository is erased once.
 */
export function createPruner(config: Config, logger: Logger, sequelize: Sequelize): Pruner {
  const changes = ChangeRunner.for(sequelize);
  return new Pruner(sequelize, retentionPolicies(config), {
    onError: (err) => logger.warn({ err }, 'could not delete rows past their retention; the next hour tries again'),
    erasures: { repositories: (now) => eraseDeletedRepositories(changes, now, config.REPOSITORY_DELETE_GRACE_DAYS) },
  });
}

/**
 * The daily pull of the AI vendors' apps of a process (an API instance or `npm run worker`): a tick an hour, the first
 * two minutes after start. Several processes may tick at once: each app's lease lets one of them pull it.
 */
export function createVendorPullSchedule(config: Config, logger: Logger, changes: ChangeRunner, secrets: SecretBox, catalog: ProviderCatalog): VendorPullSchedule {
  return new VendorPullSchedule(new VendorPulls(changes, catalog, secrets, defaultHttp(outboundPolicy(config))), {
    onPulled: (outcome) => {
      const said = { app: outcome.app_id, stored: outcome.stored.length, without_report: outcome.without_report.length, refused: outcome.refused.length };
      if (outcome.credential_refused) logger.warn({ ...said, reason: outcome.credential_refused }, 'an AI vendor refused the app\'s credential; it waits for a new one');
      else if (outcome.destination_refused) logger.warn({ ...said, reason: outcome.destination_refused }, 'an AI vendor\'s app has a base URL that may not be called; nothing was pulled');
      else if (outcome.refused.length) logger.warn({ ...said, first: outcome.refused[0] }, 'an AI vendor\'s pull refused days; the other days are stored');
      else logger.info(said, 'AI vendor usage pulled');
    },
    onError: (err, appId) =>
      appId
        ? logger.warn({ err, app: appId }, 'could not pull an AI vendor\'s app; the next tick tries again')
        : logger.warn({ err }, 'could not read the AI vendors\' apps due for a pull; the next tick tries again'),
  });
}


/**
 * The history importers' runner (docs/history.md) over the webhooks' own writers: `npm run import` and the daily
 * catch-up build it here. `http` is the careful client every provider call goes through (a CLI's tells its waits).
 */
export function createHistoryImports(
  config: Config,
  changes: ChangeRunner,
  secrets: SecretBox,
  catalog: ProviderCatalog,
  http: ProviderHttp = defaultHttp(outboundPolicy(config)),
  now: () => Date = () => new Date(),
  batches?: BatchLimits,
): HistoryImports {
  const writers = { activity: new GitActivityWriter(changes, catalog, now), tasks: new TaskWriter(changes, now), operations: new OperationsWriter(changes, now), conversations: new ConversationWriter(changes, now) };
  return new HistoryImports(changes, catalog, new ConnectionCredentials(changes, secrets, catalog, now), writers, http, now, batches);
}

/**
 * The daily catch-up of a process (an API instance or `npm run worker`), beside the AI vendors' daily pull: each
 * connection read from its provider's API imported again from where it reached, so a lost delivery is found within
 * a day. Several processes may tick at once: each connection's lease lets one of them import it.
 */
export function createHistoryCatchUp(config: Config, logger: Logger, changes: ChangeRunner, secrets: SecretBox, catalog: ProviderCatalog): HistoryCatchUp {
  return new HistoryCatchUp(createHistoryImports(config, changes, secrets, catalog), catalog, {
    onImported: (outcome) => {
      const said = { connection: outcome.connection_id, provider: outcome.provider, read: outcome.read, found: outcome.found };
      if (outcome.outcome === 'complete') logger.info(said, 'history caught up');
      else if (outcome.outcome === 'stopped') logger.info(said, 'history catch-up stopped with the process; the next tick goes on from where it reached');
      else logger.warn({ ...said, reason: outcome.message }, outcome.outcome === 'refused' ? "a provider refused the connection's credential; it waits for a new one" : 'history caught up in part; the next day reads again');
    },
    onError: (err, connectionId) =>
      connectionId
        ? logger.warn({ err, connection: connectionId }, "could not catch up a connection's history; the next tick tries again")
        : logger.warn({ err }, 'could not read the connections due for a catch-up; the next tick tries again'),
  });
}

/**
 * The recomputations of changed settings over the history (docs/metrics.md#recomputing) of a process (an API instance
 * or `npm run worker`): woken by the change of settings that starts one, and every minute for one left behind.
 */
export function createRecomputations(logger: Logger, changes: ChangeRunner): Recomputations {
  const recomputations = new Recomputations(changes, {
    onError: (err) => logger.warn({ err }, 'could not recompute the figures under changed settings; the next minute goes on from where it stopped'),
  });
  changes.onCommitted(({ tables }) => {
    if (tables.includes('metric_recomputations')) void recomputations.wake();
  });
  return recomputations;
}
