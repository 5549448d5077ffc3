import { hasAiMarker } from '../../rollups/aiMarkers';
import { FIXTURE_COMMITS } from '../fixtures/commits';
import { Random } from '../random';
import { DeployedCommit, RepoState, Seeding } from '../state';
import { commitMessage } from '../text';
import { allocate, END_MS, MINUTE, sortedCreatedAts, toDate } from '../time';
import { BOT_AUTHORS, CLAUDE_CODE_TRAILER, EXTERNAL_AUTHORS } from '../words';

/** Commits, streamed repository by repository; returns the ones deployed, and the stream that chose them. */
export async function seedCommits({ ins, root, spec }: Seeding, repos: RepoState[]): Promise<{ deployed: DeployedCommit[]; rng: Random }> {
  const rngCommit = root.fork('commits');
  const commitShares = allocate(spec.commits, repos.map(() => 0.15 + rngCommit.float() ** 2));
  // Deployed commits are chosen with a random stream of their own, so the commits are the same as without them.
  const rngDeploy = root.fork('deployments');
  // AI coding tools' marks too: a share of members' commits, half of what the organization's Claude Code users
  // make likely, carries Claude Code's trailer.
  const rngAi = root.fork('commit-ai-markers');
  const deployed: DeployedCommit[] = [];
  {
    await ins.stream('commits', async (w) => {
      for (const f of FIXTURE_COMMITS) await w.add({ ...f, ai_assisted: hasAiMarker(f.message), created_at: toDate(f.created_at) });
      for (let ri = 0; ri < repos.length; ri++) {
        const repo = repos[ri];
        const g = repo.gitApp;
        const times = sortedCreatedAts(rngCommit, commitShares[ri], repo.createdMs + MINUTE, END_MS, spec.tieChance);
        for (let i = 0; i < times.length; i++) {
          const author = g.authors.length > 0 && rngCommit.chance(0.93) ? rngCommit.pick(g.authors).user : null;
          const additions = rngCommit.durationMs(1, 1500);
          const sha = rngCommit.hex(40);
          if (rngDeploy.chance(spec.deployedCommitShare)) deployed.push({ repo, sha, atMs: times[i] });
          const message = commitMessage(rngCommit) + (author && rngAi.chance(spec.telemetry.claudeShare / 2) ? CLAUDE_CODE_TRAILER : '');
          await w.add({
            id: rngCommit.id('cmt_'),
            repository_id: repo.id,
            git_app_id: g.id,
            organization_id: g.org.id,
            sha,
            message,
            ai_assisted: hasAiMarker(message),
            author_id: author ? author.id : null,
            author_name: author ? author.name : rngCommit.chance(0.7) ? rngCommit.pick(BOT_AUTHORS) : rngCommit.pick(EXTERNAL_AUTHORS),
            additions,
            deletions: rngCommit.chance(0.15) ? 0 : rngCommit.int(0, additions),
            created_at: new Date(times[i]),
          });
        }
      }
    });
  }
  return { deployed, rng: rngDeploy };
}
