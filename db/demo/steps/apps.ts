import { FIXTURE_APPS, FIXTURE_USER_APPS } from '../fixtures';
import { Row } from '../inserter';
import { DAY_MS } from '../random';
import { OrgState, Seeding } from '../state';
import { externalUserId, rank } from '../text';
import { createdAt, END_MS, HOUR, toDate } from '../time';
import { APP_PROVIDERS } from '../words';

/** Apps of each organization and the users bound to them. */
export async function seedApps({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<void> {
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
}
