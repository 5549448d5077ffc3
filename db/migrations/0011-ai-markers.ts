import { DataTypes, QueryInterface, QueryTypes } from 'sequelize';
import { AI_MARKER_HINTS, hasAiMarker } from '../rollups/aiMarkers';
import { dropColumn } from './0004-write-path';

/**
 * What AI impact and collaboration read of commits and pull requests (docs/metrics.md#ai-review-and-cost-figures):
 * - `ai_assisted` on commits and pull requests: the mark an AI coding tool left (db/rollups/aiMarkers.ts).
 *   Commits already stored are marked from their messages here, by the list the writers read (run later on an older
 *   database, it marks by the list of that day, as the writers then do); pull requests' descriptions were never
 *   stored, so theirs start unmarked and are marked by their next delivery.
 * - `additions` and `deletions` of pull requests, as the provider counts them; null until a delivery says.
 */
const PAGE = 5_000;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
  await qi.addColumn('commits', 'ai_assisted', flag);
  await qi.addColumn('pull_requests', 'ai_assisted', flag);
  await qi.addColumn('pull_requests', 'additions', { type: DataTypes.INTEGER, allowNull: true });
  await qi.addColumn('pull_requests', 'deletions', { type: DataTypes.INTEGER, allowNull: true });
  await markCommits(qi);
}

/** Pages of candidates by id (a cheap `LIKE` first), each page's marked commits updated at once. */
async function markCommits(qi: QueryInterface): Promise<void> {
  const hinted = AI_MARKER_HINTS.map((hint) => `LOWER(message) LIKE '%${hint}%'`).join(' OR ');
  for (let after = ''; ; ) {
    const rows = await qi.sequelize.query<{ id: string; message: string }>(`SELECT id, message FROM commits WHERE id > :after AND (${hinted}) ORDER BY id LIMIT ${PAGE}`, {
      replacements: { after },
      type: QueryTypes.SELECT,
    });
    const marked = rows.filter((r) => hasAiMarker(r.message)).map((r) => r.id);
    if (marked.length) await qi.sequelize.query('UPDATE commits SET ai_assisted = :yes WHERE id IN (:marked)', { replacements: { yes: true, marked } });
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].id;
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const column of ['deletions', 'additions', 'ai_assisted']) await dropColumn(qi, 'pull_requests', column);
  await dropColumn(qi, 'commits', 'ai_assisted');
}
