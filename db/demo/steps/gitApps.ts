import { FIXTURE_GIT_APPS, FIXTURE_USER_GIT_APPS } from '../fixtures/gitApps';
import { FIXTURE_PULL_REQUESTS } from '../fixtures/pullRequests';
import { FIXTURE_REPOSITORIES } from '../fixtures/repositories';
import { Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { GitAppState, OrgState, RepoState, Seeding } from '../state';
import { gitUsername } from '../text';
import { createdAt, END_MS, HOUR, toDate } from '../time';
import { BRANCHES, GIT_PROVIDERS, REPO_NAMES } from '../words';

/** Git apps and the users bound to them (their authors). */
export async function seedGitApps({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<{ gitApps: GitAppState[]; rng: Random }> {
  const rngGit = root.fork('git');
  const gitAppRows: Row[] = FIXTURE_GIT_APPS.map((g) => ({ ...g, created_at: toDate(g.created_at) }));
  const gitApps: GitAppState[] = [];
  for (const f of FIXTURE_GIT_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    const g: GitAppState = { id: f.id, org, provider: f.provider, createdMs: Date.parse(f.created_at), authors: [], logins: new Map(), repos: [] };
    org.gitApps.push(g);
    gitApps.push(g);
  }
  for (const org of orgs) {
    const target = rngGit.int(spec.gitAppsPerOrg[0], spec.gitAppsPerOrg[1]);
    const nameCounts = new Map<string, number>();
    let previousMs = -1;
    for (let i = org.gitApps.length; i < target; i++) {
      const [provider, label] = rngGit.weighted(GIT_PROVIDERS.map((p) => [p, p[2]] as const));
      const baseName = `${org.name} ${label}`;
      const k = (nameCounts.get(baseName) ?? 0) + 1;
      nameCounts.set(baseName, k);
      const createdMs =
        previousMs >= 0 && rngGit.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngGit, org.createdMs + HOUR, Math.min(org.createdMs + 300 * DAY_MS, END_MS - 90 * DAY_MS));
      previousMs = createdMs;
      const g: GitAppState = { id: rngGit.id('gapp_'), org, provider, createdMs, authors: [], logins: new Map(), repos: [] };
      org.gitApps.push(g);
      gitApps.push(g);
      if (!org.sources.git.includes(provider)) org.sources.git.push(provider);
      gitAppRows.push({ id: g.id, organization_id: org.id, provider, name: k === 1 ? baseName : `${baseName} ${k}`, is_active: !rngGit.chance(0.1), created_at: new Date(createdMs) });
    }
  }
  for (const f of FIXTURE_GIT_APPS) {
    const org = orgs.find((o) => o.id === f.organization_id)!;
    if (!org.sources.git.includes(f.provider)) org.sources.git.unshift(f.provider);
  }
  await ins.insertAll('git_apps', gitAppRows);

  function* userGitAppRows(): Generator<Row> {
    for (const f of FIXTURE_USER_GIT_APPS) yield { ...f, created_at: toDate(f.created_at) };
    for (const org of orgs) {
      for (const m of org.members) {
        org.gitApps.forEach((g, i) => {
          if (!rngGit.chance(i === 0 ? 0.8 : 0.35)) return;
          g.authors.push(m);
        });
      }
      for (const g of org.gitApps) {
        for (const m of g.authors) {
          const username = gitUsername(rngGit, m.user);
          g.logins.set(m.user.id, username);
          yield {
            user_id: m.user.id,
            git_app_id: g.id,
            username,
            created_at: new Date(createdAt(rngGit, Math.max(m.joinedMs, g.createdMs), END_MS)),
          };
        }
      }
    }
  }
  await ins.insertAll('user_git_apps', userGitAppRows());

  return { gitApps, rng: rngGit };
}

/** Repositories of each git app (more for larger organizations), from the git apps' random stream. */
export async function seedRepositories({ ins, spec }: Seeding, { gitApps, rng: rngGit }: { gitApps: GitAppState[]; rng: Random }): Promise<RepoState[]> {
  const repoRows: Row[] = FIXTURE_REPOSITORIES.map((r) => ({ ...r, created_at: toDate(r.created_at) }));
  const repos: RepoState[] = [];
  for (const f of FIXTURE_REPOSITORIES) {
    const g = gitApps.find((x) => x.id === f.git_app_id)!;
    const r: RepoState = {
      id: f.id,
      gitApp: g,
      createdMs: Date.parse(f.created_at),
      fixturePrCount: FIXTURE_PULL_REQUESTS.filter((p) => p.repository_id === f.id).length,
    };
    g.repos.push(r);
    repos.push(r);
  }
  for (const g of gitApps) {
    const org = g.org;
    const extra = spec.membersPerExtraRepo > 0 ? Math.floor(org.members.length / spec.membersPerExtraRepo / org.gitApps.length) : 0;
    const target = rngGit.int(spec.reposPerGitApp[0], spec.reposPerGitApp[1]) + extra;
    const used = new Set(FIXTURE_REPOSITORIES.filter((r) => r.git_app_id === g.id).map((r) => r.name));
    const names = rngGit.shuffle(REPO_NAMES.filter((n) => !used.has(n)));
    let previousMs = -1;
    for (let i = 0; g.repos.length < target; i++) {
      const round = Math.floor(i / names.length);
      const name = round ? `${names[i % names.length]}-${round + 1}` : names[i % names.length];
      const createdMs =
        previousMs >= 0 && rngGit.chance(spec.tieChance * 2)
          ? previousMs
          : createdAt(rngGit, g.createdMs + HOUR, Math.min(g.createdMs + 500 * DAY_MS, END_MS - 120 * DAY_MS));
      previousMs = createdMs;
      const r: RepoState = { id: rngGit.id('repo_'), gitApp: g, createdMs, fixturePrCount: 0 };
      g.repos.push(r);
      repos.push(r);
      repoRows.push({
        id: r.id,
        git_app_id: g.id,
        organization_id: org.id,
        name,
        full_name: `${org.slug}/${name}`,
        default_branch: rngGit.weighted(BRANCHES),
        is_private: rngGit.chance(0.7),
        created_at: new Date(createdMs),
      });
    }
  }
  await ins.insertAll('repositories', repoRows);
  return repos;
}
