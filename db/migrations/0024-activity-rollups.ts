import { DataTypes, QueryInterface } from 'sequelize';
import { fillAuthorDays } from '../rollups/authorDays';
import { fillInteractionDays } from '../rollups/interactionDays';

/**
 * What the activity figures read (docs/metrics.md), so that a year of an organization is a few thousand rows, not a year
 * of commits and interactions read entry by entry (about 150 ms each cold on the large data, more under load):
 * - `author_days`: per organization, each day a member committed on, with their previous such day: an organization's
 *   distinct authors of any window or bucket are counted from one index range (src/services/git/rollups/authorDays.ts).
 * - `interaction_days`: per organization and per team (`scope_id`), UTC day and type, how many interactions. The
 *   service receives no interactions itself: counted here, by the demo seed, and by whatever stores them
 *   (src/services/activity/interactionDays.ts).
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const id = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('author_days', {
    organization_id: { ...id, primaryKey: true },
    user_id: { ...id, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    previous_day: { type: DataTypes.DATEONLY, allowNull: true },
  });
  await qi.createTable('interaction_days', {
    scope_id: { ...id, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    type: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    interactions: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  // Filled before the index is built: much faster for a large history.
  await fillAuthorDays(qi);
  await fillInteractionDays(qi);
  // The authors active in a window: their days there, whose previous day is before it, from the index alone.
  await qi.addIndex('author_days', ['organization_id', 'day', 'previous_day'], { name: 'author_days_organization_id_day' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('interaction_days');
  await qi.dropTable('author_days');
}
