import { FIXTURE_DEPLOYMENTS, FIXTURE_INCIDENTS } from '../fixtures';
import { Inserter, Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { DeployedCommit } from '../state';
import { END_MS, freeMs, laterMs, MINUTE, toDate } from '../time';
import { INCIDENT_TITLES } from '../words';

/**
 * Deployments of deployed commits (docs/ingest.md): to production, some to staging first, about one in eight failed.
 * Some successful production deployments cause an incident that names the deployed sha; most are resolved within
 * hours, a few stay open.
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
  await ins.insertAll('incidents', incidents);
}
