import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';

/**
 * How many interactions of each type each UTC day saw, per organization and per team (interaction_days, `scope_id`
 * holding either id): what the activity figures read instead of a year of interactions. Counted again for an
 * organization by whatever stores its interactions (src/services/activity/interactionDays.ts); built whole by
 * migration 0024 and the demo seed.
 */
export function interactionDaysSql(mysql: boolean, scope: 'organization_id' | 'team_id', where: string): string {
  const day = mysql ? 'DATE(i.created_at)' : 'date(i.created_at)';
  return `INSERT INTO interaction_days (scope_id, day, type, interactions)
    SELECT i.${scope}, ${day}, i.type, COUNT(*) FROM interactions i WHERE ${where}${scope === 'team_id' ? ' AND i.team_id IS NOT NULL' : ''} GROUP BY i.${scope}, ${day}, i.type`;
}

/** From the stored interactions. */
export async function fillInteractionDays(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'interaction_days');
  for (const scope of ['organization_id', 'team_id'] as const) await qi.sequelize.query(interactionDaysSql(qi.sequelize.getDialect() === 'mysql', scope, '1 = 1'));
}
