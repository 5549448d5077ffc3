import { createHash } from 'node:crypto';
import request from 'supertest';
import { AuditEntry, Commit, UserGitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { publicBase } from '../../src/config';
import { GIT_APP_LINKS } from '../../src/services/people/linkTables';
import { unlinkedAccounts } from '../../src/services/people/unmatchedAccounts';

/**
 * `settings.accounts.*` (docs/settings.md#setup) as the page calls them: an organization's admin lists a git app's or
 * an app's accounts with activity and no member, busiest first, as `apps|gitapps unlinked` does, and links one to a
 * member by e-mail or id, audited as theirs. Refused: a manager or collaborator (403), an API token or no session
 * (401), a foreign page's change (403), another organization's connection (404), an unknown member (404), an account
 * another member holds (409).
 */

let t: TestApp;
let origin: string;
let ada: SettingsBrowser;
beforeAll(async () => {
  t = await startTestApp();
  origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
});
afterAll(async () => t?.close());

const data = (res: request.Response) => res.body.result.data;
const errorOf = (res: request.Response) => ({ status: res.status, code: res.body.error?.data?.code, message: res.body.error?.message as string });
const acme = { organization_id: DEMO.orgs.acme };

const pushExample = githubExamples('push').find((p) => p.commits.length === 1)!;
const pullRequestExample = githubExamples('pull_request').find((p) => p.action === 'opened')!;
const sha = (key: string) => createHash('sha1').update(key).digest('hex');

/** A git app that received, as GitHub sends them, commits and a pull request by logins no member is known by. */
async function gitAppWithStrangers(name: string) {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', name);
  const push = async (login: string, at: string) => {
    const payload = copy(pushExample);
    const commit = { ...payload.commits[0], id: sha(`${name} ${login} ${at}`), tree_id: sha(at), timestamp: at, author: { name: login, email: `${login}@home.example`, username: login } };
    payload.commits = [commit];
    payload.head_commit = commit;
    payload.after = commit.id;
    expect((await deliverToGithub(t, gitApp.id, secret, { event: 'push', payload })).status).toBe(200);
    return commit.id;
  };
  await push('octo-busy', '2026-05-01T10:00:00Z');
  await push('octo-quiet', '2026-05-04T10:00:00Z');
  await push('octo-busy', '2026-05-03T10:00:00Z');
  const opened = copy(pullRequestExample);
  opened.pull_request = { ...opened.pull_request, id: 990001, number: 901, user: { ...opened.pull_request.user, login: 'octo-busy' }, created_at: '2026-05-02T10:00:00Z' };
  expect((await deliverToGithub(t, gitApp.id, secret, { event: 'pull_request', payload: opened })).status).toBe(200);
  return { id: gitApp.id, push };
}

/** A Slack app whose messages came from accounts no member is linked to. */
async function slackWithStrangers(name: string) {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name });
  const source = { appId: app.id, organizationId: DEMO.orgs.acme, provider: 'slack' };
  const at = new Date('2026-05-04T09:00:00Z');
  const message = (sender: string, n: number) => ({ channel: 'C1', messageId: `${sender}.${n}`, sender, counterparts: [], at });
  await t.runtime.writers.conversations.receive({ source, id: `Ev-${app.id}`, event: 'message' }, [message('UCHATTY', 1), message('UCHATTY', 2), message('USHY', 1)]);
  return app.id;
}

test('a git app’s and an app’s accounts busiest first, as the CLI lists them; linked by e-mail or id, audited as the admin’s, gone from the list', async () => {
  const git = await gitAppWithStrangers('GitHub (people to link)');
  const ofGit = { ...acme, git_app_id: git.id };
  const listed = data(await ada.query('settings.accounts.unlinked', ofGit));
  expect(listed).toEqual({
    connection_id: git.id,
    total: 2,
    accounts: [
      { account: 'octo-busy', account_kind: 'account', activity: 3, by_kind: { commit: 2, pull_request: 1 }, last_seen_at: '2026-05-03T10:00:00.000Z' },
      { account: 'octo-quiet', account_kind: 'account', activity: 1, by_kind: { commit: 1 }, last_seen_at: '2026-05-04T10:00:00.000Z' },
    ],
  });
  expect(listed).toEqual(await unlinkedAccounts(GIT_APP_LINKS, git.id));

  const slack = await slackWithStrangers('Slack (people to link)');
  const ofSlack = { ...acme, app_id: slack };
  expect(data(await ada.query('settings.accounts.unlinked', ofSlack)).accounts.map((a: { account: string; activity: number }) => [a.account, a.activity])).toEqual([
    ['UCHATTY', 2],
    ['USHY', 1],
  ]);

  expect(data(await ada.mutate('settings.accounts.link', { ...ofGit, account: 'octo-busy', user: 'LINUS@demo.test' }))).toEqual({
    connection_id: git.id,
    user_id: DEMO.users.linus,
    account: 'octo-busy',
    created_at: expect.any(String),
  });
  expect(data(await ada.mutate('settings.accounts.link', { ...ofSlack, account: 'UCHATTY', user: DEMO.users.grace }))).toMatchObject({ connection_id: slack, user_id: DEMO.users.grace, account: 'UCHATTY' });
  expect(data(await ada.query('settings.accounts.unlinked', ofGit))).toMatchObject({ total: 1, accounts: [{ account: 'octo-quiet' }] });
  expect(data(await ada.query('settings.accounts.unlinked', ofSlack))).toMatchObject({ total: 1, accounts: [{ account: 'USHY' }] });
  const setup = data(await ada.query('settings.setup', acme));
  expect(setup.sources.find((s: { id: string }) => s.id === git.id)).toMatchObject({ unlinked_accounts: 1 });

  // As a link a push taught: what arrives next under the login is the member's.
  const next = await git.push('octo-busy', '2026-05-05T10:00:00Z');
  expect((await Commit.findOne({ where: { git_app_id: git.id, sha: next } }))?.author_id).toBe(DEMO.users.linus);

  const audit = await AuditEntry.findAll({ where: { action: ['git_app.user_linked', 'app.user_linked'], target_id: [git.id, slack] }, order: [['action', 'ASC']] });
  expect(audit.map((e) => [e.action, e.target_id, e.actor_user_id, JSON.parse(e.details)])).toEqual([
    ['app.user_linked', slack, DEMO.users.ada, { user_id: DEMO.users.grace, external_user_id: 'UCHATTY' }],
    ['git_app.user_linked', git.id, DEMO.users.ada, { user_id: DEMO.users.linus, username: 'octo-busy' }],
  ]);
});

test('what to fix: an unknown member, an account another member holds, a member of another organization, no connection or both', async () => {
  const git = await gitAppWithStrangers('GitHub (mistakes)');
  const ofGit = { ...acme, git_app_id: git.id };
  expect(data(await ada.mutate('settings.accounts.link', { ...ofGit, account: 'octo-busy', user: DEMO.emails.linus }))).toMatchObject({ user_id: DEMO.users.linus });
  const mistakes: [object, number, string, string][] = [
    [{ ...ofGit, account: 'octo-quiet', user: 'nobody@demo.test' }, 404, 'NOT_FOUND', `No member nobody@demo.test in organization ${DEMO.orgs.acme}`],
    [{ ...ofGit, account: 'octo-quiet', user: DEMO.emails.hedy }, 404, 'NOT_FOUND', `No member ${DEMO.emails.hedy} in organization ${DEMO.orgs.acme}`],
    [{ ...ofGit, account: 'octo-busy', user: DEMO.emails.grace }, 409, 'CONFLICT', `User name octo-busy of git app ${git.id} is already linked to ${DEMO.users.linus}`],
    [{ ...acme, account: 'octo-quiet', user: DEMO.emails.grace }, 400, 'VALIDATION_ERROR', 'Give either app_id'],
    [{ ...ofGit, app_id: DEMO.apps.acmeSlack, account: 'octo-quiet', user: DEMO.emails.grace }, 400, 'VALIDATION_ERROR', 'Give either app_id'],
    [{ ...ofGit, account: ' ', user: DEMO.emails.grace }, 400, 'VALIDATION_ERROR', 'account must not be empty'],
    [{ ...ofGit, account: 'octo-quiet', user: DEMO.emails.grace, role: 'admin' }, 400, 'VALIDATION_ERROR', 'role'],
  ];
  for (const [input, status, code, message] of mistakes) {
    expect({ input, ...errorOf(await ada.mutate('settings.accounts.link', input)) }).toMatchObject({ input, status, code, message: expect.stringContaining(message) });
  }
  expect(errorOf(await ada.query('settings.accounts.unlinked', acme))).toMatchObject({ status: 400, message: expect.stringContaining('Give either app_id') });
  expect(errorOf(await ada.query('settings.accounts.unlinked', { ...acme, git_app_id: 'gapp_nothing' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  // Nothing of the refused links was written.
  expect((await UserGitApp.findAll({ where: { git_app_id: git.id } })).map((l) => [l.username, l.user_id])).toEqual([['octo-busy', DEMO.users.linus]]);
});

test('refused: a manager, a collaborator, an API token, no session, a foreign page’s change, another organization’s admin naming acme’s connection', async () => {
  const git = await gitAppWithStrangers('GitHub (refusals)');
  const ofGit = { ...acme, git_app_id: git.id };
  const link = { ...ofGit, account: 'octo-quiet', user: DEMO.emails.grace };
  for (const user of [DEMO.users.grace, DEMO.users.linus]) {
    const who = await signInWithLink(t.runtime.app, user, origin);
    expect({ user, ...errorOf(await who.query('settings.accounts.unlinked', ofGit)) }).toMatchObject({ user, status: 403, code: 'FORBIDDEN' });
    expect({ user, ...errorOf(await who.mutate('settings.accounts.link', link)) }).toMatchObject({ user, status: 403, code: 'FORBIDDEN' });
  }
  const bearer = { Authorization: `Bearer ${await t.token()}` };
  expect(errorOf(await ada.query('settings.accounts.unlinked', ofGit, bearer))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  expect(errorOf(await ada.mutate('settings.accounts.link', link, bearer))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  expect(errorOf(await request(t.runtime.app).get(`/trpc/settings.accounts.unlinked?input=${encodeURIComponent(JSON.stringify(ofGit))}`))).toMatchObject({ status: 401 });
  expect(errorOf(await request(t.runtime.app).post('/trpc/settings.accounts.link').set('Content-Type', 'application/json').send(JSON.stringify(link)))).toMatchObject({ status: 401 });
  expect(errorOf(await ada.mutate('settings.accounts.link', link, { Origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });

  const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
  const globex = { organization_id: DEMO.orgs.globex };
  expect(errorOf(await margaret.query('settings.accounts.unlinked', { ...globex, git_app_id: git.id }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.mutate('settings.accounts.link', { ...link, ...globex }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(errorOf(await margaret.mutate('settings.accounts.link', { ...globex, app_id: DEMO.apps.acmeSlack, account: 'U1', user: DEMO.emails.margaret }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  // Under acme's id she is no admin.
  expect(errorOf(await margaret.query('settings.accounts.unlinked', ofGit))).toMatchObject({ status: 403, code: 'FORBIDDEN' });

  expect(await UserGitApp.count({ where: { git_app_id: git.id } })).toBe(0);
  expect(data(await ada.query('settings.accounts.unlinked', ofGit)).total).toBe(2);
});
