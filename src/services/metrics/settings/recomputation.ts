import type { Transaction } from 'sequelize';
import { MetricRecomputation, MetricSetting } from '../../../../db/models';
import { botClassifier } from '../../../../db/rollups/botAccounts';
import type { Change, ChangeRunner } from '../../../persistence/changes/change';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { Periodic } from '../../periodic';
import { refreshPullRequestSamples } from '../../git/rollups/pullRequestSamples';
import { refreshActivityBots, setBotBits } from '../../git/pullRequests/botRows';
import { MetricSettingsDocument, parseStoredDocument } from './document';

/**
 * A change of the settings the writers apply (the bot accounts: bots.ts) holds for the whole history, so it is
 * recomputed before it applies: in the background, a chunk of pull requests per change, each row's bit of the next
 * generation rewritten (db/rollups/botAccounts.ts) while the figures go on reading the bit of theirs and naming the
 * version in force. The last chunk makes the new settings the ones in force in the same change that raises the
 * figures' data version: every answer is computed under one version or the other, and says which.
 */

/** Pull requests per change: a few hundred rows of each table locked for well under a second. */
export const RECOMPUTE_CHUNK = 500;

/** What the settings page and `settings.metrics.get` say of a recomputation under way. */
export interface RecomputationView {
  version: number;
  done: number;
  total: number;
  started_at: Date;
}

export async function recomputationOf(organizationId: string, transaction?: Transaction): Promise<{ progress: RecomputationView; settings: MetricSettingsDocument } | null> {
  const row = await MetricRecomputation.findByPk(organizationId, { transaction });
  return row && { progress: { version: row.version, done: row.done, total: row.total, started_at: row.started_at }, settings: parseStoredDocument(row.document) };
}

/**
 * Within a change of the settings: the version to come is recomputed from the first pull request, replacing one under
 * way (whose rows are rewritten again from the first); or, `continuing` one whose bot accounts it keeps, takes its
 * place and goes on where it is.
 */
export async function startRecomputation(change: Change, organizationId: string, version: number, settings: MetricSettingsDocument, at: Date, continuing = false): Promise<void> {
  const { transaction } = change;
  const existing = await MetricRecomputation.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE });
  const document = JSON.stringify(settings);
  if (existing && continuing) {
    await existing.update({ version, document, updated_at: at }, { transaction });
  } else {
    const sql = new ChangeSql(transaction);
    const [{ n }] = await sql.select<{ n: number | string }>('SELECT COUNT(*) AS n FROM pull_requests WHERE organization_id = :org', { org: organizationId });
    const fields = { version, document, after_id: null, done: 0, total: Number(n), started_at: at, updated_at: at };
    if (existing) await existing.update(fields, { transaction });
    else await MetricRecomputation.create({ organization_id: organizationId, ...fields }, { transaction });
  }
  change.wrote('metric_recomputations');
}

/** Within a change of the settings that needs none: one under way is replaced by the version it applies. */
export async function dropRecomputation(change: Change, organizationId: string): Promise<void> {
  const deleted = await MetricRecomputation.destroy({ where: { organization_id: organizationId }, transaction: change.transaction });
  if (deleted) change.wrote('metric_recomputations');
}

/**
 * The organizations' recomputations, a chunk per change until each is done: run by every API instance and worker
 * (src/runtime/background.ts), woken by the change of settings that starts one and every minute for one a stopped
 * process left behind. Two processes at once take turns on the recomputation's row.
 */
export class Recomputations {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly periodic: Periodic;

  constructor(
    private readonly changes: ChangeRunner,
    private readonly options: { chunk?: number; now?: () => Date; onError?: (err: unknown) => void } = {},
  ) {
    this.periodic = new Periodic(() => this.wake(), 5_000, 60_000);
  }

  start(): void {
    this.periodic.start();
  }

  /** Between two chunks: what is done stays, and the next process to run goes on from there. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.periodic.stop();
    await this.running;
  }

  /** Runs every recomputation under way (once more after this run, when woken during it). */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.runAll();
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Every recomputation under way, to its end. */
  async runAll(): Promise<void> {
    const pending = await MetricRecomputation.findAll({ attributes: ['organization_id'], order: [['organization_id', 'ASC']] });
    for (const { organization_id } of pending) while (!this.stopped && (await this.step(organization_id)));
  }

  /** One chunk of an organization's; false once there is nothing left to do. */
  step(organizationId: string): Promise<boolean> {
    return this.changes.run((change) => recomputeChunk(change, organizationId, this.options.chunk ?? RECOMPUTE_CHUNK, (this.options.now ?? (() => new Date()))()));
  }
}

async function recomputeChunk(change: Change, organizationId: string, chunk: number, at: Date): Promise<boolean> {
  const { transaction } = change;
  // The settings first, as every writer takes them (then the recomputation, as a change of settings does): one order.
  const classifier = await botClassifier(transaction, organizationId);
  const recomputation = await MetricRecomputation.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!recomputation) return false;
  const sql = new ChangeSql(transaction);
  const pullRequests = await sql.select<{ id: string; author_login: string | null; bot: number | string }>(
    `SELECT id, author_login, bot FROM pull_requests WHERE organization_id = :org${recomputation.after_id ? ' AND id > :after' : ''} ORDER BY id LIMIT ${chunk}${sql.forUpdate}`,
    { org: organizationId, after: recomputation.after_id },
  );
  if (pullRequests.length === 0) {
    await applyRecomputed(change, recomputation, at);
    return false;
  }
  const moved = pullRequests.map((p) => ({ id: p.id, bits: classifier.of(p.author_login) })).filter((p, i) => p.bits !== Number(pullRequests[i].bot));
  await setBotBits(sql, 'pull_requests', moved);
  await refreshActivityBots(transaction, organizationId, pullRequests.map((p) => p.id), classifier);
  await refreshPullRequestSamples(transaction, moved.map((p) => p.id));
  await recomputation.update({ after_id: pullRequests[pullRequests.length - 1].id, done: recomputation.done + pullRequests.length, updated_at: at }, { transaction });
  return true;
}

/** The recomputed settings become the ones in force, and the figures read the bit they were recomputed into. */
async function applyRecomputed(change: Change, recomputation: MetricRecomputation, at: Date): Promise<void> {
  const { transaction } = change;
  const organizationId = recomputation.organization_id;
  const row = await MetricSetting.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE });
  const fields = { version: recomputation.version, document: recomputation.document, updated_at: at, bots_generation: (row?.bots_generation ?? 0) + 1 };
  if (row) await row.update(fields, { transaction });
  else await MetricSetting.create({ organization_id: organizationId, ...fields }, { transaction });
  await recomputation.destroy({ transaction });
  change.wrote('metric_settings', 'metric_recomputations');
  change.audit({
    organizationId,
    actor: { type: 'operator' },
    action: 'metric_settings.applied',
    target: { type: 'organization', id: organizationId },
    details: { version: recomputation.version, pull_requests: recomputation.done },
  });
}
