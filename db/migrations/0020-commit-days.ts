import { DataTypes, QueryInterface } from 'sequelize';
import { emptied } from './refill';

/**
 * `commit_days`: how many commits were created each UTC day, and how many of them are AI-assisted (DESIGN §16), per
 * repository and per organization (`scope_id` holds either id: a team reads its repositories' rows, an organization
 * its own, a year either way being a few hundred rows, not a year of commits read row by row). Kept by the commit,
 * telemetry and repository writers (src/services/git/commitDays.ts). Filled here from the commits already stored.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.createTable('commit_days', {
    scope_id: { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    commits: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ai_commits: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await fillCommitDays(qi);
}

/** From the stored commits: also what the demo seed runs after writing them. */
export async function fillCommitDays(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'commit_days');
  const day = qi.sequelize.getDialect() === 'mysql' ? 'DATE(created_at)' : 'date(created_at)';
  const ai = 'CASE WHEN ai_assisted = 1 OR author_ai_active = 1 THEN 1 ELSE 0 END';
  for (const scope of ['repository_id', 'organization_id']) {
    await qi.sequelize.query(
      `INSERT INTO commit_days (scope_id, day, commits, ai_commits) SELECT ${scope}, ${day}, COUNT(*), SUM(${ai}) FROM commits GROUP BY ${scope}, ${day}`,
    );
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('commit_days');
}
