import { QueryInterface } from 'sequelize';

/**
 * An organization's deletion (`npm run orgs -- delete`) removes every row the organization owns, its audit log
 * included; the entry recording the deletion itself must outlive it, so it is kept with no organization
 * (`organization_id` null, the organization's id as its target). No settings page shows it: each shows one
 * organization's log.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await setNullable(qi, true);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('DELETE FROM audit_log WHERE organization_id IS NULL');
  await setNullable(qi, false);
}

async function setNullable(qi: QueryInterface, nullable: boolean): Promise<void> {
  if (qi.sequelize.getDialect() === 'mysql') {
    await qi.sequelize.query(`ALTER TABLE audit_log MODIFY organization_id VARCHAR(40) BINARY ${nullable ? 'NULL' : 'NOT NULL'}`);
    return;
  }
  // SQLite changes a column's constraint by copying the table, which drops its indexes: each is made again as it was.
  const [indexes] = await qi.sequelize.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_log' AND sql IS NOT NULL");
  const statements = indexes.map((row) => (row && typeof row === 'object' && 'sql' in row && typeof row.sql === 'string' ? row.sql : ''));
  await qi.changeColumn('audit_log', 'organization_id', { type: 'VARCHAR(40)', allowNull: nullable });
  for (const statement of statements) if (statement) await qi.sequelize.query(statement.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
}
