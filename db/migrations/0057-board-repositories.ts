import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * A board of an incident tool (a PagerDuty service, an Opsgenie team) or of the deployments API may be mapped to
 * several repositories (docs/incidents.md#mapping), and an incident then belongs to each of them:
 * - `board_repositories` holds every repository mapping of a board, one row per repository; `app_boards` keeps the
 *   mappings to a team and loses `repository_id`. The stored mappings move over, each keeping when it was made.
 * - `incident_repositories` holds each incident's repositories: its board's, or the repository a git provider's
 *   issue is in. The figures of a team or repository read incidents through it; `incidents.repository_id` stays the
 *   first of them (the earliest mapping), as the incident's resource shows it. The stored incidents get theirs here.
 * Each step runs only where it has not: a run that failed halfway goes on, a second changes nothing.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const ts = { type: DataTypes.DATE(3), allowNull: false };
  if (!(await qi.tableExists('board_repositories'))) {
    await qi.createTable('board_repositories', {
      app_id: { ...ref, primaryKey: true },
      board_key: { type: mysql ? 'VARCHAR(200) BINARY' : DataTypes.STRING(200), allowNull: false, primaryKey: true },
      repository_id: { ...ref, primaryKey: true },
      organization_id: ref,
      created_at: ts,
    });
    await qi.addIndex('board_repositories', ['repository_id'], { name: 'board_repositories_repository_id' });
  }
  if (Object.keys(await qi.describeTable('app_boards')).includes('repository_id')) {
    await qi.sequelize.query(`INSERT INTO board_repositories (app_id, board_key, repository_id, organization_id, created_at)
      SELECT b.app_id, b.board_key, b.repository_id, b.organization_id, b.created_at FROM app_boards b
      WHERE b.repository_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM board_repositories r WHERE r.app_id = b.app_id AND r.board_key = b.board_key AND r.repository_id = b.repository_id)`);
    await qi.sequelize.query('DELETE FROM app_boards WHERE team_id IS NULL');
    await dropColumn(qi, 'app_boards', 'repository_id');
  }
  if (!(await qi.tableExists('incident_repositories'))) {
    await qi.createTable('incident_repositories', {
      incident_id: { ...ref, primaryKey: true },
      repository_id: { ...ref, primaryKey: true },
      organization_id: ref,
    });
    // A team's incidents: by repository, then the incident, from the index alone.
    await qi.addIndex('incident_repositories', ['repository_id', 'incident_id'], { name: 'incident_repositories_repository_id_incident_id' });
  }
  await qi.sequelize.query(`INSERT INTO incident_repositories (incident_id, repository_id, organization_id)
    SELECT i.id, i.repository_id, i.organization_id FROM incidents i
    WHERE i.repository_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM incident_repositories r WHERE r.incident_id = i.id AND r.repository_id = i.repository_id)`);
}

/** Each board keeps its earliest repository mapping, as before; only what is there is undone. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  if (!Object.keys(await qi.describeTable('app_boards')).includes('repository_id')) {
    await qi.addColumn('app_boards', 'repository_id', { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: true });
  }
  if (await qi.tableExists('board_repositories')) {
    await qi.sequelize.query(`INSERT INTO app_boards (app_id, board_key, organization_id, team_id, repository_id, created_at)
      SELECT r.app_id, r.board_key, r.organization_id, NULL, r.repository_id, r.created_at FROM board_repositories r
      WHERE NOT EXISTS (SELECT 1 FROM app_boards b WHERE b.app_id = r.app_id AND b.board_key = r.board_key)
        AND NOT EXISTS (SELECT 1 FROM board_repositories e WHERE e.app_id = r.app_id AND e.board_key = r.board_key
          AND (e.created_at < r.created_at OR (e.created_at = r.created_at AND e.repository_id < r.repository_id)))`);
    await qi.dropTable('board_repositories');
  }
  if (await qi.tableExists('incident_repositories')) await qi.dropTable('incident_repositories');
}
