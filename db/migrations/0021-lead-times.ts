import { DataTypes, QueryInterface } from 'sequelize';
import { durationBands } from '../../src/services/git/bands';
import { emptied } from './refill';

/**
 * The lead time of each change a successful production deployment shipped, and their daily counts per band (DESIGN
 * §14), kept by the deployment, commit and repository writers (src/services/git/leadTimes.ts), so that DORA's
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
  await fillLeadTimes(qi);
  // A band's values in a window, per organization or repository, from the index alone; a repository's from a time on.
  await qi.addIndex('shipped_changes', ['organization_id', 'band', 'finished_at', 'lead_ms'], { name: 'shipped_changes_organization_id_band_finished_at' });
  await qi.addIndex('shipped_changes', ['repository_id', 'band', 'finished_at', 'lead_ms'], { name: 'shipped_changes_repository_id_band_finished_at' });
  await qi.addIndex('shipped_changes', ['repository_id', 'finished_at'], { name: 'shipped_changes_repository_id_finished_at' });
}

/** From the stored deployments and commits: also what the demo seed runs after writing them. */
export async function fillLeadTimes(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'lead_time_days', 'shipped_changes');
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const leadMs = mysql ? 'TIMESTAMPDIFF(MICROSECOND, c.created_at, x.finished_at) DIV 1000' : 'CAST(ROUND((julianday(x.finished_at) - julianday(c.created_at)) * 86400000) AS INTEGER)';
  const epoch = mysql ? "'1970-01-01 00:00:00.000'" : "'1970-01-01 00:00:00.000 +00:00'";
  // GROUP BY materialises the deployments, each previous finish found once: merged into the join, MariaDB looked it
  // up again for every commit (hours for a million).
  const success = (d: string) => `LOWER(${d}.environment) = 'production' AND ${d}.status = 'success'`;
  await qi.sequelize.query(
    `INSERT INTO shipped_changes (deployment_id, commit_id, repository_id, organization_id, finished_at, band, lead_ms)
     SELECT x.id, c.id, x.repository_id, x.organization_id, x.finished_at, ${durationBands.sql(leadMs)}, ${leadMs}
     FROM (SELECT d.id, d.repository_id, d.organization_id, d.finished_at,
             COALESCE((SELECT MAX(p.finished_at) FROM deployments p WHERE p.repository_id = d.repository_id AND ${success('p')} AND p.finished_at < d.finished_at), ${epoch}) AS previous_finished_at
           FROM deployments d WHERE ${success('d')} GROUP BY d.id, d.repository_id, d.organization_id, d.finished_at) AS x
     JOIN commits c ON c.repository_id = x.repository_id AND c.created_at > x.previous_finished_at AND c.created_at <= x.finished_at`,
  );
  const day = mysql ? 'DATE(finished_at)' : 'date(finished_at)';
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(`INSERT INTO lead_time_days (scope_id, day, band, changes) SELECT ${scope}, ${day}, band, COUNT(*) FROM shipped_changes GROUP BY ${scope}, ${day}, band`);
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('lead_time_days');
  await qi.dropTable('shipped_changes');
}
