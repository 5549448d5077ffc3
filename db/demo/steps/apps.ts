import { FIXTURE_APP_BOARDS, FIXTURE_APPS, FIXTURE_STATUS_OVERRIDES, FIXTURE_USER_APPS } from '../fixtures/apps';
import { DEMO } from '../fixtures/ids';
import { Row } from '../inserter';
import { DAY_MS } from '../random';
import { OrgState, Seeding } from '../state';
import { externalUserId, rank } from '../text';
import { createdAt, END_MS, HOUR, toDate } from '../time';
import { APP_PROVIDERS } from '../words';

/** A tracker's board mapped to a team: where the team's tasks come from. */
export interface TeamBoard {
  appId: string;
  provider: string;
  board: string;
}

/** Acme's Linear team, mapped to its first generated team. */
const LINEAR_BOARD = 'ENG';

/**
 * Apps of each organization and the users bound to them; Acme's trackers' boards mapped to its teams, and their
 * status names mapped where the provider's category is not the one meant. Returns the board of each mapped team.
 */
export async function seedApps({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<Map<string, TeamBoard>> {
  const rngApp = root.fork('apps');
  const appRows: Row[] = FIXTURE_APPS.map((a) => ({ ...a, created_at: toDate(a.created_at) }));
  for (const f of FIXTURE_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    org.apps.push({ id: f.id, provider: f.provider, category: f.category, createdMs: Date.parse(f.created_at) });
    org.sources[f.category].push(f.provider);
  }
  for (const org of orgs) {
    const target = rngApp.int(spec.appsPerOrg[0], spec.appsPerOrg[1]);
    const have = new Set(org.apps.map((a) => a.provider));
    const candidates = rngApp.shuffle(APP_PROVIDERS.filter(([p]) => !have.has(p)));
    // Make sure each organization has a chat and an issues app before anything else.
    candidates.sort((a, b) => rank(org, a[1]) - rank(org, b[1]));
    let previousMs = -1;
    for (const [provider, category, name] of candidates.slice(0, Math.max(0, target - org.apps.length))) {
      const createdMs =
        previousMs >= 0 && rngApp.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngApp, org.createdMs + HOUR, Math.min(org.createdMs + 300 * DAY_MS, END_MS - 60 * DAY_MS));
      previousMs = createdMs;
      const id = rngApp.id('app_');
      org.apps.push({ id, provider, category, createdMs });
      org.sources[category].push(provider);
      appRows.push({ id, organization_id: org.id, provider, category, name, is_active: !rngApp.chance(0.12), created_at: new Date(createdMs) });
    }
  }
  await ins.insertAll('apps', appRows);

  const acme = orgs.find((o) => o.id === DEMO.orgs.acme)!;
  const linearTeam = acme.teams.find((t) => !t.fixture);
  const linear = FIXTURE_APPS.find((a) => a.id === DEMO.apps.acmeLinear)!;
  const mapped = FIXTURE_APP_BOARDS.map((b) => ({ ...b, created_at: toDate(b.created_at)! }));
  if (linearTeam) {
    const createdAt = new Date(Math.max(Date.parse(linear.created_at), linearTeam.createdMs) + HOUR);
    mapped.push({ app_id: linear.id, board_key: LINEAR_BOARD, organization_id: acme.id, team_id: linearTeam.id, created_at: createdAt });
  }
  await ins.insertAll('app_boards', mapped);
  await ins.insertAll('app_status_overrides', FIXTURE_STATUS_OVERRIDES.map((o) => ({ ...o, created_at: toDate(o.created_at) })));
  const providerOf = new Map(FIXTURE_APPS.map((a) => [a.id, a.provider]));
  const boards = new Map<string, TeamBoard>();
  for (const b of mapped) if (b.team_id) boards.set(b.team_id, { appId: b.app_id, provider: providerOf.get(b.app_id)!, board: b.board_key });

  function* userAppRows(): Generator<Row> {
    for (const f of FIXTURE_USER_APPS) yield { ...f, created_at: toDate(f.created_at) };
    for (const org of orgs) {
      for (const m of org.members) {
        for (const app of org.apps) {
          if (!rngApp.chance(0.6)) continue;
          yield {
            user_id: m.user.id,
            app_id: app.id,
            external_user_id: externalUserId(rngApp, app.provider, m.user, org),
            created_at: new Date(createdAt(rngApp, Math.max(m.joinedMs, app.createdMs), END_MS)),
          };
        }
      }
    }
  }
  await ins.insertAll('user_apps', userAppRows());
  return boards;
}
