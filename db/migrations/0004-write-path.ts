import { DataTypes, QueryInterface } from 'sequelize';

/**
 * What the writers of docs/architecture.md#writers and docs/scim.md need:
 * - Membership states. An organization membership is `active` or `suspended`; a team membership carries the
 *   state of its member's organization membership (writers keep the two equal in one transaction), so member
 *   lists stay one index range: (scope, status, user field, user_id) replaces (scope, user field, user_id).
 * - Identities an identity provider gives: `external_id` of a membership (SCIM User `externalId`, per
 *   organization) and of a team (Group `externalId`), the member's job `title` in the organization, and
 *   `updated_at` for SCIM `meta.lastModified`.
 * - The outbox: every change's events (docs/webhooks.md), written in the change's transaction; `seq` orders them.
 * - SCIM tokens: bound to one organization, stored as SHA-256 hashes like API tokens.
 */
const ID_TYPE = DataTypes.STRING(40);
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';
const MEMBERSHIP_TABLES = { organization_memberships: 'organization_id', team_memberships: 'team_id' } as const;
const SORT_FIELDS = ['user_name', 'user_email', 'user_created_at'];
/** MySQL names have at most 64 characters: `organization_memberships_organization_id_status_user_created_at_user_id` has 71. */
export const MEMBER_INDEX_PREFIX = { organization_memberships: 'org_members_by_status', team_memberships: 'team_members_by_status' } as const;
const memberIndex = (table: keyof typeof MEMBERSHIP_TABLES, field: string) => `${MEMBER_INDEX_PREFIX[table]}_${field}`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const idType = mysql ? MYSQL_ID_TYPE : ID_TYPE;
  const status = { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' };
  // An identity provider's id is case-exact (RFC 7643 `externalId`): binary collation on MySQL, as for our ids.
  const externalId = { type: mysql ? 'VARCHAR(255) BINARY' : DataTypes.STRING(255), allowNull: true };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };

  for (const [table, scope] of Object.entries(MEMBERSHIP_TABLES) as [keyof typeof MEMBERSHIP_TABLES, string][]) {
    await qi.addColumn(table, 'status', status);
    for (const field of SORT_FIELDS) {
      await qi.removeIndex(table, `${table}_${scope}_${field}_user_id`);
      await qi.addIndex(table, [scope, 'status', field, 'user_id'], { name: memberIndex(table, field) });
    }
  }
  await qi.addColumn('organization_memberships', 'external_id', externalId);
  await qi.addColumn('organization_memberships', 'title', { type: DataTypes.STRING(200), allowNull: true });
  await qi.addColumn('organization_memberships', 'updated_at', optionalTs);
  await qi.addIndex('organization_memberships', ['organization_id', 'external_id'], {
    name: 'organization_memberships_organization_id_external_id_unique',
    unique: true,
  });
  await qi.addColumn('users', 'updated_at', optionalTs);
  await qi.addColumn('teams', 'external_id', externalId);
  await qi.addColumn('teams', 'updated_at', optionalTs);
  await qi.addIndex('teams', ['organization_id', 'external_id'], { name: 'teams_organization_id_external_id_unique', unique: true });

  await qi.createTable('outbox_events', {
    seq: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true, autoIncrement: true },
    id: { type: idType, allowNull: false },
    organization_id: { type: idType, allowNull: false },
    type: { type: DataTypes.STRING(64), allowNull: false },
    // A push may list hundreds of commits: MEDIUMTEXT on MySQL (TEXT stops at 64 KB); SQLite's TEXT has no cap.
    data: { type: mysql ? DataTypes.TEXT('medium') : DataTypes.TEXT, allowNull: false },
    created_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('outbox_events', ['id'], { name: 'outbox_events_id_unique', unique: true });
  await qi.addIndex('outbox_events', ['organization_id', 'seq'], { name: 'outbox_events_organization_id_seq' });

  await qi.createTable('scim_tokens', {
    id: { type: idType, allowNull: false, primaryKey: true },
    organization_id: { type: idType, allowNull: false },
    name: { type: DataTypes.STRING(200), allowNull: false },
    token_hash: { type: DataTypes.CHAR(64), allowNull: false },
    preview: { type: DataTypes.STRING(40), allowNull: false },
    is_active: { type: DataTypes.BOOLEAN, allowNull: false },
    last_used_at: optionalTs,
    revoked_at: optionalTs,
    created_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('scim_tokens', ['token_hash'], { name: 'scim_tokens_token_hash_unique', unique: true });
  await qi.addIndex('scim_tokens', ['organization_id', 'created_at'], { name: 'scim_tokens_organization_id_created_at' });
}

/**
 * Sequelize's SQLite removeColumn copies the table through a description that marks each column of a composite
 * primary key UNIQUE (organization_memberships' copy then fails); SQLite ≥ 3.35 drops a column in place.
 */
export async function dropColumn(qi: QueryInterface, table: string, column: string): Promise<void> {
  if (qi.sequelize.getDialect() === 'sqlite') await qi.sequelize.query(`ALTER TABLE \`${table}\` DROP COLUMN \`${column}\``);
  // The table rebuilt (COPY; INPLACE may still drop instantly): MariaDB keeps instantly dropped columns in the row
  // format, and a table taken down and up a few times then refuses new columns ("Row size too large").
  else await qi.sequelize.query(`ALTER TABLE \`${table}\` DROP COLUMN \`${column}\`, ALGORITHM=COPY`);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('scim_tokens');
  await qi.dropTable('outbox_events');
  await qi.removeIndex('teams', 'teams_organization_id_external_id_unique');
  await dropColumn(qi, 'teams', 'updated_at');
  await dropColumn(qi, 'teams', 'external_id');
  await dropColumn(qi, 'users', 'updated_at');
  await qi.removeIndex('organization_memberships', 'organization_memberships_organization_id_external_id_unique');
  await dropColumn(qi, 'organization_memberships', 'updated_at');
  await dropColumn(qi, 'organization_memberships', 'external_id');
  await dropColumn(qi, 'organization_memberships', 'title');
  for (const [table, scope] of Object.entries(MEMBERSHIP_TABLES) as [keyof typeof MEMBERSHIP_TABLES, string][]) {
    for (const field of SORT_FIELDS) {
      await qi.removeIndex(table, memberIndex(table, field));
      await qi.addIndex(table, [scope, field, 'user_id'], { name: `${table}_${scope}_${field}_user_id` });
    }
    await dropColumn(qi, table, 'status');
  }
}
