import { FIXTURE_INTERACTIONS } from '../fixtures/interactions';
import { GenUser, MemberState, OrgState, Seeding } from '../state';
import { DEFAULT_SOURCE } from '../text';
import { allocate, END_MS, sortedCreatedAts, toDate } from '../time';
import { AppCategory } from '../words';
import type { InteractionType } from '../../vocabulary';

/** Interactions, membership by membership. */
export async function seedInteractions({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
  const rngInt = root.fork('interactions');
  const memberships: MemberState[] = orgs.flatMap((o) => o.members);
  const intShares = allocate(spec.interactions, memberships.map(() => 0.2 + rngInt.float()));
  {
    await ins.stream('interactions', async (w) => {
      for (const f of FIXTURE_INTERACTIONS) await w.add({ ...f, created_at: toDate(f.created_at) });
      for (let mi = 0; mi < memberships.length; mi++) {
        const n = intShares[mi];
        if (n === 0) continue;
        const m = memberships[mi];
        const org = m.org;
        const times = sortedCreatedAts(rngInt, n, m.joinedMs, END_MS, spec.tieChance);
        for (let i = 0; i < n; i++) {
          const type = rngInt.weighted<InteractionType>([
            ['code_review', 30],
            ['communication', 35],
            ['task_assignment', 15],
          ]);
          const category: AppCategory = type === 'code_review' ? 'git' : type === 'communication' ? 'chat' : 'issues';
          const sources = org.sources[category];
          const source = sources.length > 0 ? rngInt.pick(sources) : DEFAULT_SOURCE[category];
          // Only teams the user had joined by then.
          const joined = m.teams.filter((t) => t.joinedMs <= times[i]);
          const team = joined.length > 0 && rngInt.chance(0.6) ? rngInt.pick(joined).team : null;
          let counterpart: GenUser | null = null;
          if (!rngInt.chance(0.05)) {
            const pool = team ? team.members.map((x) => x.member) : org.members;
            if (pool.length > 1) {
              for (let tries = 0; tries < 4 && counterpart === null; tries++) {
                const c = rngInt.pick(pool);
                if (c !== m) counterpart = c.user;
              }
            }
          }
          await w.add({
            id: rngInt.id('int_'),
            organization_id: org.id,
            type,
            source,
            user_id: m.user.id,
            counterpart_id: counterpart ? counterpart.id : null,
            team_id: team ? team.id : null,
            created_at: new Date(times[i]),
          });
        }
      }
    });
  }
}
