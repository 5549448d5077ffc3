import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { GitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli } from '../support/cli';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';

/**
 * The git app CLI and the importer (docs/architecture.md#writers, docs/ingest.md) as an operator runs them, on a real repository made here:
 * commits by members and non-members, a binary file, a multi-line message. What they store is compared with
 * `git log` itself, and with what `/v1` shows.
 */

let t: TestApp;
let token: string;
let gitapps: ReturnType<typeof appCli>;
let importer: ReturnType<typeof appCli>;
let clone: string;

function git(args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

/** A commit by `author` at `date` (author and committer dates alike, so the history is the same on every run). */
function commit(author: string, date: string, message: string, files: Record<string, string | Buffer>) {
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(clone, name), content);
  git(['add', '-A']);
  const [, name, email] = /^(.*) <(.*)>$/.exec(author)!;
  git(['commit', '-q', '-m', message], {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  });
}

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  gitapps = appCli(t, 'gitapps');
  importer = appCli(t, 'import');
  clone = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-clone-'));
  execFileSync('git', ['init', '-q', '-b', 'main', clone]);
  git(['remote', 'add', 'origin', 'git@github.com:acme/widgets.git']);
  commit('Ada Lovelace <ada@demo.test>', '2025-01-06T09:00:00Z', 'Initial commit', { 'README.md': 'widgets\n', 'a.txt': 'one\ntwo\nthree\n' });
  commit('Stranger <stranger@example.com>', '2025-01-07T10:30:00+02:00', 'Fix typo\n\nLonger explanation\nover two lines.\n\nCo-Authored-By: Claude <noreply@anthropic.com>', { 'a.txt': 'one\n2\nthree\n' });
  commit('Linus Torvalds <Linus@Demo.test>', '2025-01-08T12:00:00Z', 'Add logo', { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 255]) });
  commit('Grace Hopper <grace@demo.test>', '2025-01-09T08:15:00Z', 'Remove a.txt, add b.txt', { 'b.txt': 'x\ny\n' });
  fs.rmSync(path.join(clone, 'a.txt'));
  git(['commit', '-q', '--amend', '-a', '--no-edit'], { GIT_COMMITTER_DATE: '2025-01-09T08:15:00Z' });
});
afterAll(async () => {
  fs.rmSync(clone, { recursive: true, force: true });
  await t.close();
});

/** `git log` itself: sha, author e-mail, committer date, message, added and deleted lines. */
function gitLog() {
  const out = git(['log', '--numstat', '--format=%x1e%H%x1f%ae%x1f%cI%x1f%B%x1f']);
  return out
    .split('\x1e')
    .filter(Boolean)
    .map((record) => {
      const [sha, email, date, message, numstat] = record.split('\x1f');
      const lines = numstat.split('\n').filter((l) => /^[\d-]+\t[\d-]+\t/.test(l));
      const sum = (i: number) => lines.reduce((n, l) => n + (Number(l.split('\t')[i]) || 0), 0);
      return { sha, email, date: new Date(date).toISOString(), message: message.trim(), additions: sum(0), deletions: sum(1) };
    });
}

describe('gitapps', () => {
  test('create prints the webhook URL and the secret once; the database holds it sealed', async () => {
    const run = await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'github', '--name', 'GitHub acme', '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const created = JSON.parse(run.stdout);
    expect(created).toEqual({ id: expect.stringMatching(/^gapp_/), webhook_url: `http://localhost:${t.config.PORT}/ingest/github/${created.id}`, secret: expect.stringMatching(/^[\w-]{43}$/) });
    const row = await GitApp.findByPk(created.id);
    expect(row).toMatchObject({ organization_id: DEMO.orgs.acme, provider: 'github', name: 'GitHub acme', is_active: expect.anything() });
    expect(row!.webhook_secret).not.toContain(created.secret);
    expect(row!.webhook_secret).toMatch(/^v1\./);

    // The secret it printed is the one deliveries are checked against.
    const ping = await deliverToGithub(t, created.id, created.secret, { event: 'ping', payload: githubExamples('ping')[0] });
    expect(ping.status).toBe(200);

    const human = await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'gitlab', '--name', 'GitLab acme');
    expect(human.stdout).toMatch(/webhook URL: http:\/\/localhost:\d+\/ingest\/gitlab\/gapp_\w+\n/);
    expect(human.stdout).toMatch(/Triggers: Push events/);
    expect(human.stdout).toMatch(/shown only this once/);

    // Bitbucket Cloud: where to paste them, and the triggers to choose (docs/ingest.md#bitbucket-cloud).
    const bitbucket = await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'bitbucket', '--name', 'Bitbucket acme');
    expect(bitbucket.stdout).toMatch(/webhook URL: http:\/\/localhost:\d+\/ingest\/bitbucket\/gapp_\w+\n/);
    expect(bitbucket.stdout).toMatch(/settings: {4}Repository settings → Webhooks → Add webhook \(or Workspace settings → Webhooks, for all its repositories\): Secret as above; Triggers: Repository Push, Updated; Pull Request Created, Updated, Approved, Approval removed, Changes request created, Merged, Declined, Comment created\n\n {2}\S{43}\n/);
  });

  test('list shows URLs and whether a secret is set, never a secret; rotate-secret prints a new one', async () => {
    const created = JSON.parse((await gitapps('create', '--org', DEMO.orgs.globex, '--provider', 'gitlab', '--name', 'GitLab globex', '--json')).stdout);
    const list = JSON.parse((await gitapps('list', '--org', DEMO.orgs.globex, '--json')).stdout);
    expect(list.map((g: { id: string }) => g.id)).toEqual([DEMO.gitApps.globexGitlab, created.id]);
    expect(list[1]).toEqual({
      id: created.id,
      organization_id: DEMO.orgs.globex,
      provider: 'gitlab',
      name: 'GitLab globex',
      is_active: true,
      has_secret: true,
      previous_secret_accepted_until: null,
      webhook_url: created.webhook_url,
      created_at: expect.any(String),
    });
    expect(list[0]).toMatchObject({ has_secret: false });
    expect(JSON.stringify(list)).not.toContain(created.secret);

    const rotated = JSON.parse((await gitapps('rotate-secret', created.id, '--json')).stdout);
    expect(rotated).toEqual({ id: created.id, webhook_url: created.webhook_url, secret: expect.any(String) });
    expect(rotated.secret).not.toBe(created.secret);
    const human = await gitapps('rotate-secret', created.id);
    expect(human.stdout).toMatch(/The previous secret is still accepted for 24 hours/);
  });

  test('rotate-secret --end-grace refuses a leaked previous secret at once, instead of for 24 hours; audited', async () => {
    const created = JSON.parse((await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'github', '--name', 'GitHub leaked', '--json')).stdout);
    const rotated = JSON.parse((await gitapps('rotate-secret', created.id, '--json')).stdout);
    const ping = (secret: string) => deliverToGithub(t, created.id, secret, { event: 'ping', payload: githubExamples('ping')[0] });
    // During the grace GitHub's deliveries are taken signed with either.
    expect((await ping(created.secret)).status).toBe(200);
    expect((await ping(rotated.secret)).status).toBe(200);
    expect(JSON.parse((await gitapps('list', '--org', DEMO.orgs.acme, '--json')).stdout).find((g: { id: string }) => g.id === created.id)).toMatchObject({ previous_secret_accepted_until: expect.any(String) });

    const ended = await gitapps('rotate-secret', created.id, '--end-grace');
    expect(ended).toMatchObject({ code: 0, stdout: expect.stringContaining(`The previous secret of git app ${created.id} is refused from now on: only the current one is accepted.\n`) });
    // The git app is read from the primary for every delivery: refused at once.
    expect((await ping(created.secret)).status).toBe(401);
    expect((await ping(rotated.secret)).status).toBe(200);
    const again = JSON.parse((await gitapps('rotate-secret', created.id, '--end-grace', '--json')).stdout);
    expect(again).toMatchObject({ id: created.id, has_secret: true, previous_secret_accepted_until: null });

    const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, token);
    const mine = log.body.data.filter((e: { target_id: string }) => e.target_id === created.id).reverse();
    expect(mine.map((e: { action: string; actor_type: string }) => [e.action, e.actor_type])).toEqual([
      ['git_app.created', 'operator'],
      ['git_app.secret_rotated', 'operator'],
      ['git_app.secret_grace_ended', 'operator'],
    ]);
  });

  test('bad input: usage errors exit 2, an unknown organization or git app exits 1', async () => {
    expect(await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'git', '--name', 'x')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--provider github\|gitlab\|bitbucket \(got 'git'\)/) });
    expect(await gitapps('create', '--provider', 'github', '--name', 'x')).toMatchObject({ code: 2, stderr: expect.stringMatching(/create needs --org/) });
    expect(await gitapps('rotate-secret')).toMatchObject({ code: 2 });
    expect(await gitapps('create', '--org', 'org_nope', '--provider', 'github', '--name', 'x')).toMatchObject({ code: 1, stderr: 'gitapps: No organization org_nope\n' });
    expect(await gitapps('rotate-secret', 'gapp_nope')).toMatchObject({ code: 1, stderr: 'gitapps: No git app gapp_nope\n' });
    expect(await gitapps('rotate-secret', 'gapp_nope', '--end-grace')).toMatchObject({ code: 1, stderr: 'gitapps: No git app gapp_nope\n' });
  });
});

describe('import git', () => {
  let gitAppId: string;
  let secret: string;
  beforeAll(async () => {
    ({ id: gitAppId, secret } = JSON.parse((await gitapps('create', '--org', DEMO.orgs.acme, '--provider', 'github', '--name', 'Widgets', '--json')).stdout));
  });

  test('a push of the newest commit arrives first, without line counts', async () => {
    const payload = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
    const [newest] = gitLog();
    Object.assign(payload.repository, { name: 'widgets', full_name: 'acme/widgets' });
    Object.assign(payload.commits[0], { id: newest.sha, message: newest.message, timestamp: newest.date, author: { name: 'Grace Hopper', email: newest.email, username: 'grace' } });
    const res = await deliverToGithub(t, gitAppId, secret, { event: 'push', payload });
    expect(res.body.data).toMatchObject({ commits_added: 1 });
  });

  test('the clone is imported into the same repository, as git log has it; its line counts are filled in', async () => {
    const run = await importer('git', '--git-app', gitAppId, clone, '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const result = JSON.parse(run.stdout);
    expect(result).toEqual({ repository_id: expect.stringMatching(/^repo_/), repository: 'acme/widgets', commits_read: 4, commits_added: 3, stats_filled: 1, seconds: expect.any(Number) });

    const repos = await t.get(`/v1/git/apps/${gitAppId}/repositories`, token);
    expect(repos.body.meta.total).toBe(1);
    const stored = await t.get(`/v1/git/apps/${gitAppId}/repositories/${result.repository_id}/commits?per_page=100`, token);
    expect(stored.body.meta.total).toBe(4);
    const authors: Record<string, string | null> = {
      'ada@demo.test': DEMO.users.ada,
      'stranger@example.com': null,
      'Linus@Demo.test': DEMO.users.linus,
      'grace@demo.test': DEMO.users.grace,
    };
    expect(stored.body.data).toEqual(
      gitLog().map((c) => ({
        id: expect.stringMatching(/^cmt_/),
        repository_id: result.repository_id,
        sha: c.sha,
        message: c.message,
        author_id: authors[c.email],
        author_name: expect.any(String),
        additions: c.additions,
        deletions: c.deletions,
        // The stranger's commit was written with Claude Code, and says so.
        ai_assisted: c.email === 'stranger@example.com',
        created_at: c.date,
      })),
    );
    // The binary file counts no lines; the amended commit deleted a.txt's three lines.
    expect(stored.body.data.map((c: { additions: number; deletions: number }) => [c.additions, c.deletions])).toEqual([[2, 3], [0, 0], [1, 1], [4, 0]]);
  });

  test('a second run adds nothing and says so', async () => {
    const run = await importer('git', '--git-app', gitAppId, clone);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Nothing to add: all 4 commits of acme\/widgets \(repo_\w+\) are already stored\.$/m);
  });

  test('--name names another repository; the import there is independent', async () => {
    const run = JSON.parse((await importer('git', '--git-app', gitAppId, '--name', 'acme/widgets-mirror', clone, '--json')).stdout);
    expect(run).toMatchObject({ repository: 'acme/widgets-mirror', commits_added: 4 });
  });

  test('a bare clone is read as well', async () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bare-'));
    try {
      execFileSync('git', ['clone', '-q', '--bare', clone, bare]);
      const run = JSON.parse((await importer('git', '--git-app', gitAppId, '--name', 'acme/widgets', bare, '--json')).stdout);
      expect(run).toMatchObject({ repository: 'acme/widgets', commits_read: 4, commits_added: 0 });
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  test('bad input: not a clone, an unknown git app, missing arguments', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-not-a-clone-'));
    try {
      expect(await importer('git', '--git-app', gitAppId, empty)).toMatchObject({ code: 1, stderr: `import: ${empty} is not a git repository\n` });
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    expect(await importer('git', '--git-app', 'gapp_nope', clone)).toMatchObject({ code: 1, stderr: 'import: No git app gapp_nope (see npm run gitapps -- list)\n' });
    expect(await importer('git', clone)).toMatchObject({ code: 2, stderr: expect.stringMatching(/git needs --git-app/) });
    expect(await importer('svn', '--git-app', gitAppId, clone)).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown source "svn"/) });
  });
});
