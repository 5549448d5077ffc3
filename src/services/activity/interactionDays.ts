import { Transaction } from 'sequelize';
import { interactionDaysSql } from '../../../db/rollups/interactionDays';
import { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * How many interactions of each type each UTC day saw, per organization and per team (interaction_days, `scope_id`
 * holding either id): what the activity figures read instead of a year of interactions. The writers that make
 * interactions from real events (task assignments, code reviews: interactions.ts) add to the days in the same
 * change; whatever stores interactions in bulk for an organization (the demo seed) counts its days again (the SQL:
 * db/rollups/interactionDays.ts). This counts an organization's days and its teams' again from its interactions.
 */
export async function recountInteractionDays(transaction: Transaction, organizationId: string): Promise<void> {
  const sql = new ChangeSql(transaction);
  const replacements = { organization_id: organizationId };
  await sql.run('DELETE FROM interaction_days WHERE scope_id = :organization_id OR scope_id IN (SELECT id FROM teams WHERE organization_id = :organization_id)', replacements);
  for (const scope of ['organization_id', 'team_id'] as const) await sql.run(interactionDaysSql(sql.mysql, scope, 'i.organization_id = :organization_id'), replacements);
}
