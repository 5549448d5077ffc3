import { DataTypes, QueryInterface } from 'sequelize';
import { fillLeadTimes } from '../rollups/deployments';

/**
 * The lead time of each change a successful production deployment shipped, and their daily counts per band (
 * docs/metrics.md), kept by the deployment, commit and repository writers (src/services/git/rollups/leadTimes.ts), so that DORA's
 * median over a year reads a few hundred rows, not every shipped change ranked. Filled here from the deployments and
 * commits already stored, with the writer's bands (their bounds are whole milliseconds, the same in SQL).
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('shipped_changes', {
    deployment_id: { ...ref, primaryKey: true },
    commit_id: { ...ref, primaryKey: true },
    repository_id: ref,
    organization_id: ref,
    finished_at: { type: DataTypes.DATE(3), allowNull: false },
    band: { type: DataTypes.SMALLINT, allowNull: false },
    lead_ms: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.createTable('lead_time_days', {
    scope_id: { ...ref, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    band: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    changes: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  // Filled before its indexes are built: a million rows inserted into four indexes at once took many times longer.
  await fillLeadTimes(qi, 'production');
  // A band's values in a window, per organization or repository, from the index alone; a repository's from a time on.
  await qi.addIndex('shipped_changes', ['organization_id', 'band', 'finished_at', 'lead_ms'], { name: 'shipped_changes_organization_id_band_finished_at' });
  await qi.addIndex('shipped_changes', ['repository_id', 'band', 'finished_at', 'lead_ms'], { name: 'shipped_changes_repository_id_band_finished_at' });
  await qi.addIndex('shipped_changes', ['repository_id', 'finished_at'], { name: 'shipped_changes_repository_id_finished_at' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('lead_time_days');
  await qi.dropTable('shipped_changes');
}
