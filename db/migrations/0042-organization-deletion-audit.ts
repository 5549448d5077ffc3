import { QueryInterface } from 'sequelize';

/**
 * An organization's deletion (`npm run orgs -- delete`) removes every row the organization owns, its audit log
 * included; the entry recording the deletion itself must outlive it, so it is kept with no organization
 * (`organization_id` null, the organization's id as its target). No settings page shows it: each shows one
 * organization's log.
 */
/** The audit log's indexes when 0042 runs: 0029's three and 0030's, the pruner's. */
const INDEXES: [string, string[]][] = [
  ['audit_log_organization_created', ['organization_id', 'created_at', 'id']],
  ['audit_log_organization_action', ['organization_id', 'action', 'created_at', 'id']],
  ['audit_log_organization_actor', ['organization_id', 'actor_user_id', 'created_at', 'id']],
  ['audit_log_created_at', ['created_at']],
];

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
  // SQLite changes a column's constraint by copying the table, which drops its indexes: those the log has at this
  // point (0029's and 0030's) are made again. Named here, not read back, so that a run stopped after the copy and
  // run again still makes them.
  await qi.changeColumn('audit_log', 'organization_id', { type: 'VARCHAR(40)', allowNull: nullable });
  for (const [name, fields] of INDEXES) {
    await qi.sequelize.query(`CREATE INDEX IF NOT EXISTS \`${name}\` ON \`audit_log\` (${fields.map((f) => `\`${f}\``).join(', ')})`);
  }
}
