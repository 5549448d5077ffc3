import type { Transaction } from 'sequelize';
import { BotClassifier, botClassifier } from '../../../../db/rollups/botAccounts';
import { Change, perChange } from '../../../persistence/changes/change';
import { ChangeSql } from '../../../persistence/changes/changeSql';

const classifiersOf = perChange(() => new Map<string, Promise<BotClassifier>>());

/**
 * Who is a bot, as the pull request writers judge it, read once per change however many pull requests and reviews
 * it stores: the first read share-locks the organization's settings row until the commit (botAccounts.ts), so no
 * other change can alter them meanwhile, and these writers never do.
 */
export function botsOf(change: Change, organizationId: string): Promise<BotClassifier> {
  const byOrganization = classifiersOf(change);
  let classifier = byOrganization.get(organizationId);
  if (!classifier) byOrganization.set(organizationId, (classifier = botClassifier(change.transaction, organizationId)));
  return classifier;
}

/**
 * A pull request's activity is a bot's when who acted is one or the pull request is a bot's (db/rollups/botAccounts.ts):
 * judged again when its author's login is learnt, and by a recomputation of the bot settings, for one organization's
 * pull requests. Rows whose bits change only, one statement per value of the bits (there are four).
 */
export async function refreshActivityBots(transaction: Transaction, organizationId: string, pullRequestIds: string[], bots?: BotClassifier): Promise<void> {
  if (pullRequestIds.length === 0) return;
  const sql = new ChangeSql(transaction);
  const classifier = bots ?? (await botClassifier(transaction, organizationId));
  const activity = await sql.select<{ id: string; actor_login: string | null; bot: number | string; pull_request_bot: number | string }>(
    `SELECT a.id, a.actor_login, a.bot, p.bot AS pull_request_bot FROM pull_request_activities a JOIN pull_requests p ON p.id = a.pull_request_id
     WHERE a.pull_request_id IN (:ids)${sql.forUpdate}`,
    { ids: pullRequestIds },
  );
  const moved = activity.map((a) => ({ id: a.id, bits: classifier.of(a.actor_login) | Number(a.pull_request_bot) })).filter((a, i) => a.bits !== Number(activity[i].bot));
  await setBotBits(sql, 'pull_request_activities', moved);
}

/** Rows' new bits, one statement per value. */
export async function setBotBits(sql: ChangeSql, table: 'pull_requests' | 'pull_request_activities', rows: { id: string; bits: number }[]): Promise<void> {
  for (const bits of new Set(rows.map((r) => r.bits))) {
    await sql.run(`UPDATE ${table} SET bot = :bits WHERE id IN (:ids)`, { bits, ids: rows.filter((r) => r.bits === bits).map((r) => r.id) });
  }
}
