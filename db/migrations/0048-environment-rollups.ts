import { DataTypes, QueryInterface } from 'sequelize';
import { fillLeadTimes, markRework, markShippedChanges } from '../rollups/deployments';
import * as leadTimes from './0021-lead-times';

/**
 * What the deployment writers keep, for every environment apart (docs/metrics.md#dora-the-four-keys-method): which
 * environments are production is the organization's setting (docs/metrics.md#what-counts), applied when the figures
 * read, so that changing it applies to all history at once. Until now only the environment named `production` was
 * kept. Each deployment's changes are the commits after the previous success of its own environment (compared
 * lowercased), as Apache DevLake counts them (src/services/git/rollups/leadTimes.ts).
 *
 * - `shipped_changes` gains `environment` (lowercased), in its band indexes after the finish: a band's values in a
 *   window stay one index range, its production environments picked in the index;
 * - `lead_time_days` gains it in its key, after the day: a year of a scope is one range of the key;
 * - `deployments.shipped_ai` and `rework` are kept for deployments to every environment (`blamed` always was).
 *
 * Both tables are made again in their new shape and filled from the stored deployments and commits, before their
 * indexes are built (0021: a million rows inserted into four indexes at once took many times longer); the last
 * index built says the migration is done, so a run that failed halfway fills them again and a second one does
 * nothing. The production deployments' flags are the same in both shapes: those of the others are only ever added.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';
/** As `deployments.environment` (LIMITS.environment), lowercased; exact on MySQL, as it is compared in the process. */
const MYSQL_ENVIRONMENT_TYPE = 'VARCHAR(200) BINARY';

const INDEXES: [name: string, columns: string[]][] = [
  // A repository's rows from a time on (the writers' recomputation).
  ['shipped_changes_repository_id_finished_at', ['repository_id', 'finished_at']],
  // A band's values in a window, per organization or repository, their environments and values from the index alone.
  ['shipped_changes_repository_id_band_finished_at_environment', ['repository_id', 'band', 'finished_at', 'environment', 'lead_ms']],
  ['shipped_changes_organization_id_band_finished_at_environment', ['organization_id', 'band', 'finished_at', 'environment', 'lead_ms']],
];
const DONE = INDEXES[INDEXES.length - 1][0];

const columnsOf = async (qi: QueryInterface, table: string) => ((await qi.tableExists(table)) ? Object.keys(await qi.describeTable(table)) : []);
const hasIndex = async (qi: QueryInterface, table: string, name: string) =>
  (await qi.tableExists(table)) && ((await qi.showIndex(table)) as { name: string }[]).some((i) => i.name === name);

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (await hasIndex(qi, 'shipped_changes', DONE)) return;
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const environment = { type: mysql ? MYSQL_ENVIRONMENT_TYPE : DataTypes.STRING(200), allowNull: false };
  // The shape before (0021) goes; a table already made again stays.
  for (const table of ['shipped_changes', 'lead_time_days']) {
    const columns = await columnsOf(qi, table);
    if (columns.length && !columns.includes('environment')) await qi.dropTable(table);
  }
  await qi.createTable('shipped_changes', {
    deployment_id: { ...ref, primaryKey: true },
    commit_id: { ...ref, primaryKey: true },
    repository_id: ref,
    organization_id: ref,
    environment,
    finished_at: { type: DataTypes.DATE(3), allowNull: false },
    band: { type: DataTypes.SMALLINT, allowNull: false },
    lead_ms: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.createTable('lead_time_days', {
    scope_id: { ...ref, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    environment: { ...environment, primaryKey: true },
    band: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    changes: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await fillLeadTimes(qi, 'each');
  await markShippedChanges(qi, 'each', 'activity');
  await markRework(qi, 'each');
  for (const [name, columns] of INDEXES) await qi.addIndex('shipped_changes', columns, { name });
}

/** Production's alone again, as 0021 made and filled them; the other deployments' flags cleared, as the writers left them. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if ((await columnsOf(qi, 'shipped_changes')).includes('environment')) await qi.dropTable('shipped_changes');
  if ((await columnsOf(qi, 'lead_time_days')).includes('environment')) await qi.dropTable('lead_time_days');
  await leadTimes.up({ context: qi });
  await qi.sequelize.query("UPDATE deployments SET shipped_ai = 0, rework = 0 WHERE LOWER(environment) <> 'production' AND (shipped_ai = 1 OR rework = 1)");
}
