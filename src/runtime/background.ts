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
import { defaultHttp } from '../outbound/providerHttp';

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

