import { Op } from 'sequelize';
import { Interaction } from '../../../db/models';
import type { Change } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import { ChangeSql } from '../../persistence/changes/changeSql';

export interface InteractionInput {
  organizationId: string;
  type: Interaction['type'];
  /** The provider it was seen on: jira, linear, github, gitlab, slack. */
  source: string;
  userId: string;
  counterpartId: string;
  teamId: string | null;
  at: Date;
  /** The event it comes from, unique in the organization (e.g. `review:<activity id>`): recorded once. */
  ref: string;
}

/**
 * Records interactions made from real events (docs/metrics.md#activity) with their day counts (interaction_days, per
 * organization and per team), in the change that saw the event; one already recorded from the same event is not
 * recorded again. Someone interacting with themselves is no interaction.
 */
export async function recordInteractions(change: Change, inputs: InteractionInput[]): Promise<number> {
  const wanted = inputs.filter((i) => i.userId !== i.counterpartId);
  if (wanted.length === 0) return 0;
  const { transaction } = change;
  const organizations = [...new Set(wanted.map((i) => i.organizationId))];
  const known = await Interaction.findAll({
    where: { organization_id: { [Op.in]: organizations }, source_ref: { [Op.in]: wanted.map((i) => i.ref) } },
    attributes: ['organization_id', 'source_ref'],
    transaction,
  });
  const seen = new Set(known.map((k) => `${k.organization_id} ${k.source_ref}`));
  const fresh = wanted.filter((i) => !seen.has(`${i.organizationId} ${i.ref}`) && seen.add(`${i.organizationId} ${i.ref}`));
  if (fresh.length === 0) return 0;
  await Interaction.bulkCreate(
    fresh.map((i) => ({
      id: newId('int'),
      organization_id: i.organizationId,
      type: i.type,
      source: i.source,
      user_id: i.userId,
      counterpart_id: i.counterpartId,
      team_id: i.teamId,
      created_at: i.at,
      source_ref: i.ref,
    })),
    { transaction },
  );
  const days = new Map<string, { scope_id: string; day: string; type: string; interactions: number }>();
  for (const i of fresh) {
    for (const scope of [i.organizationId, i.teamId]) {
      if (!scope) continue;
      const day = i.at.toISOString().slice(0, 10);
      const key = `${scope} ${day} ${i.type}`;
      const row = days.get(key) ?? { scope_id: scope, day, type: i.type, interactions: 0 };
      row.interactions += 1;
      days.set(key, row);
    }
  }
  await new ChangeSql(transaction).addTo('interaction_days', ['scope_id', 'day', 'type'], ['interactions'], [...days.values()]);
  change.wrote('interactions');
  return fresh.length;
}
