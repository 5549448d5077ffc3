import { DEMO } from '../fixtures/ids';
import { FIXTURE_ORGANIZATIONS } from '../fixtures/organizations';
import { DAY_MS } from '../random';
import { OrgState, Seeding } from '../state';
import { createdAt, START_MS, toDate } from '../time';
import { AppCategory, EXTRA_ORGS } from '../words';

/** Organizations: the fixtures', then generated ones. */
export async function seedOrganizations({ ins, root, spec }: Seeding): Promise<OrgState[]> {
  const rngOrg = root.fork('organizations');
  const blankSources = (): Record<AppCategory, string[]> => ({ issues: [], chat: [], git: [] });
  const orgs: OrgState[] = FIXTURE_ORGANIZATIONS.map((o) => ({
    id: o.id,
    name: o.name,
    slug: o.id === DEMO.orgs.acme ? 'acme' : 'globex',
    createdMs: Date.parse(o.created_at),
    members: [],
    teams: [],
    apps: [],
    gitApps: [],
    sources: blankSources(),
  }));
  for (let i = 0; i < spec.extraOrgs; i++) {
    const [name, slug] = EXTRA_ORGS[i % EXTRA_ORGS.length];
    const round = Math.floor(i / EXTRA_ORGS.length);
    orgs.push({
      id: rngOrg.id('org_'),
      name: round ? `${name} ${round + 1}` : name,
      slug: round ? `${slug}${round + 1}` : slug,
      createdMs: createdAt(rngOrg, START_MS, START_MS + 150 * DAY_MS),
      members: [],
      teams: [],
      apps: [],
      gitApps: [],
      sources: blankSources(),
    });
  }
  await ins.insertAll('organizations', [
    ...FIXTURE_ORGANIZATIONS.map((o) => ({ ...o, created_at: toDate(o.created_at) })),
    ...orgs.slice(2).map((o) => ({ id: o.id, name: o.name, created_at: new Date(o.createdMs) })),
  ]);
  return orgs;
}
