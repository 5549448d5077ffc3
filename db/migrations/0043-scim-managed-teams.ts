import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * Which teams are the identity provider's (docs/settings.md#teams): `scim_managed` is set by every SCIM change of a
 * team, and the settings page refuses to change such a team while the organization has an active SCIM token.
 * Identity providers need not send a Group's `externalId` (Okta's group push does not), so it cannot tell this.
 * Before this migration teams came only from SCIM and the demo: a team with an `externalId`, or of an organization
 * that ever had a SCIM token, is taken to be the identity provider's.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('teams', 'scim_managed', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await qi.sequelize.query(
    'UPDATE teams SET scim_managed = :managed WHERE external_id IS NOT NULL OR organization_id IN (SELECT organization_id FROM scim_tokens)',
    { replacements: { managed: true } },
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'teams', 'scim_managed');
}
