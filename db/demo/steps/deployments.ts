import { FIXTURE_DEPLOYMENTS, FIXTURE_INCIDENTS } from '../fixtures/deployments';
import { DEMO } from '../fixtures/ids';
import { Inserter, Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { DeployedCommit } from '../state';
import { END_MS, freeMs, laterMs, MINUTE, toDate } from '../time';
import { INCIDENT_TITLES } from '../words';

/**
 * Deployments of deployed commits (docs/ingest.md): to production, some to staging first, about one in eight failed.
 * Some successful production deployments cause an incident that names the deployed sha; most are resolved within
 * hours, a few stay open. Acme pages from PagerDuty (pagerDutyIncidents below).
 */
export async function insertDeploymentsAndIncidents(ins: Inserter, rng: Random, deployed: DeployedCommit[]): Promise<void> {
  const incidents: Row[] = FIXTURE_INCIDENTS.map((f) => ({ ...f, created_at: toDate(f.created_at), resolved_at: toDate(f.resolved_at), provider_updated_at: null }));
  let externalId = 10_000;
  await ins.stream('deployments', async (w) => {
    for (const f of FIXTURE_DEPLOYMENTS) await w.add({ ...f, created_at: toDate(f.created_at), finished_at: toDate(f.finished_at) });
    for (const d of deployed) {
      const g = d.repo.gitApp;
      const placement = { repository_id: d.repo.id, git_app_id: g.id, organization_id: g.org.id };
      const environment = rng.chance(0.25) ? 'staging' : 'production';
      const created = freeMs(laterMs(rng, d.atMs, 10 * MINUTE, 2 * DAY_MS));
      if (created === undefined) continue;
      const finished = laterMs(rng, created, 2 * MINUTE, 40 * MINUTE);
      const status = rng.chance(0.12) ? 'failure' : 'success';
      await w.add({
        id: rng.id('dep_'),
        ...placement,
        external_id: String(externalId++),
        environment,
        status,
        sha: d.sha,
        created_at: new Date(created),
        finished_at: new Date(finished),
      });
      if (status !== 'success' || environment !== 'production' || !rng.chance(0.1)) continue;
      const opened = freeMs(laterMs(rng, finished, 5 * MINUTE, 3 * DAY_MS));
      if (opened === undefined) continue;
      const resolved = rng.chance(0.93) ? laterMs(rng, opened, 15 * MINUTE, 2 * DAY_MS) : null;
      incidents.push({
        id: rng.id('inc_'),
        ...placement,
        external_id: String(externalId++),
        title: rng.pick(INCIDENT_TITLES),
        cause_sha: rng.chance(0.85) ? d.sha : null,
        created_at: new Date(opened),
        resolved_at: resolved === null || resolved >= END_MS - 1 ? null : new Date(resolved),
        provider_updated_at: null,
      });
    }
  });
  const stored = await pagerDutyIncidents(ins, incidents);
  await ins.insertAll('incidents', stored);
  // Each belongs to its one repository (a demo service is mapped to one).
  const placed = stored.filter((i) => i.repository_id !== null);
  await ins.insertAll('incident_repositories', placed.map((i) => ({ incident_id: i.id, repository_id: i.repository_id, organization_id: i.organization_id })));
}

/** Acme's PagerDuty service of its payments provider, mapped to no repository: its incidents are Acme's only. */
const UNMAPPED_SERVICE = 'PQ3LXNA';

/**
 * Acme's PagerDuty app (docs/incidents.md): a service per repository, mapped to it, which paged about half of Acme's
 * incidents (the others stay issues labelled `incident`), and a service of the payments provider mapped to none,
 * with a few incidents of its own. Its own random stream, so the other steps' data is the same with or without it.
 */
async function pagerDutyIncidents(ins: Inserter, incidents: Row[]): Promise<Row[]> {
  const rng = new Random('demo:pagerduty');
  const app = DEMO.apps.acmePagerduty;
  const fixtures = new Set(FIXTURE_INCIDENTS.map((f) => f.id));
  const services = new Map<string, string>();
  const serviceOf = (repositoryId: string) => {
    if (!services.has(repositoryId)) services.set(repositoryId, `P${(services.size * 7_919 + 104_729).toString(36).toUpperCase().padStart(6, 'K')}`);
    return services.get(repositoryId)!;
  };
  const paged = incidents.map((i) => {
    if (i.organization_id !== DEMO.orgs.acme || fixtures.has(String(i.id)) || !rng.chance(0.5)) return i;
    return { ...i, app_id: app, board_key: serviceOf(String(i.repository_id)), external_id: `Q${String(i.id).slice(4).toUpperCase()}`, provider_updated_at: i.resolved_at ?? i.created_at };
  });
  // Connected before the first incident it paged.
  const firstMs = paged.reduce((first, i) => (i.app_id === app && i.created_at instanceof Date ? Math.min(first, i.created_at.getTime()) : first), END_MS - 400 * DAY_MS);
  const createdMs = firstMs - DAY_MS;
  for (let k = 0; k < 6; k++) {
    const opened = END_MS - rng.int(10, 380) * DAY_MS + rng.int(0, 23) * 3_600_000;
    const resolved = laterMs(rng, opened, 20 * MINUTE, 8 * 3_600_000);
    paged.push({
      id: rng.id('inc_'), repository_id: null, git_app_id: null, organization_id: DEMO.orgs.acme, app_id: app, board_key: UNMAPPED_SERVICE,
      external_id: `QPAY${k}`, title: rng.pick(INCIDENT_TITLES), cause_sha: null, created_at: new Date(opened), resolved_at: new Date(resolved), provider_updated_at: new Date(resolved),
    });
  }
  await ins.insertAll('apps', [{ id: app, organization_id: DEMO.orgs.acme, provider: 'pagerduty', category: 'incidents', name: 'PagerDuty', is_active: true, created_at: new Date(createdMs) }]);
  const boards = [...services].map(([repositoryId, board]) => ({ app_id: app, board_key: board, repository_id: repositoryId, organization_id: DEMO.orgs.acme, created_at: new Date(createdMs + 3_600_000) }));
  await ins.insertAll('board_repositories', boards);
  return paged;
}
