import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { App } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { publicBase } from '../../src/config';
import { commentCreated, linearDelivery } from '../support/peers/linear/webhooks';

/**
 * `settings.apps.*` (docs/settings.md) as the page calls them: an organization's admin makes apps with their secret
 * once, disables and enables them, maps boards and statuses, links accounts; each change in the audit log by who made
 * it. Others are refused: a collaborator or manager (403), an admin naming another organization's app (404).
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

test('create shows the webhook URL and the secret once, stored sealed; rotate, disable, enable; each audited as ada’s', async () => {
  const created = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'jira', name: 'Jira from settings', points_field: 'customfield_10016' }));
  expect(created).toEqual({
    app: {
      id: expect.stringMatching(/^app_/),
      organization_id: DEMO.orgs.acme,
      provider: 'jira',
      category: 'issues',
      name: 'Jira from settings',
      is_active: true,
      has_secret: true,
      previous_secret_accepted_until: null,
      webhook_url: `${publicBase(t.config)}/ingest/jira/${created.app.id}`,
      points_field: 'customfield_10016',
      vendor: null,
      created_at: expect.any(String),
    },
    secret: expect.stringMatching(/^[\w-]{43}$/),
  });
  const id = created.app.id;
  expect((await App.findByPk(id))!.webhook_secret).not.toContain(created.secret);
  const listed = data(await ada.query('settings.apps.list', acme));
  expect(listed.find((a: { id: string }) => a.id === id)).toEqual(created.app);
  expect(JSON.stringify(listed)).not.toContain(created.secret);

  const rotated = data(await ada.mutate('settings.apps.rotateSecret', { ...acme, app_id: id }));
  expect(rotated.secret).not.toBe(created.secret);
  expect(data(await ada.mutate('settings.apps.disable', { ...acme, app_id: id }))).toMatchObject({ id, is_active: false });
  expect(data(await ada.mutate('settings.apps.enable', { ...acme, app_id: id }))).toMatchObject({ id, is_active: true });

  // An AI vendor's app: no URL, no secret, nothing to rotate; read with the credential the vendor issued, never shown back.
  const githubToken = `github_pat_${randomBytes(30).toString('hex')}`;
  expect(errorOf(await ada.mutate('settings.apps.create', { ...acme, provider: 'copilot' }))).toMatchObject({ status: 400, message: expect.stringContaining('is read with the credential the vendor issued') });
  expect(errorOf(await ada.mutate('settings.apps.create', { ...acme, provider: 'copilot', credential: githubToken }))).toMatchObject({ status: 400, message: expect.stringContaining('--github-org') });
  expect(errorOf(await ada.mutate('settings.apps.create', { ...acme, provider: 'jira', credential: githubToken }))).toMatchObject({ status: 400, message: expect.stringContaining('takes no vendor credential') });
  // Where a credential is sent is the operator's choice: the settings take no base URL.
  expect(errorOf(await ada.mutate('settings.apps.create', { ...acme, provider: 'copilot', credential: githubToken, github_org: 'acme-corp', base_url: 'http://169.254.169.254' }))).toMatchObject({ status: 400, message: expect.stringContaining('base_url') });
  const copilot = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'copilot', credential: githubToken, github_org: 'acme-corp' }));
  expect(copilot).toMatchObject({
    app: { provider: 'copilot', category: 'ai', name: 'GitHub Copilot', has_secret: true, webhook_url: null, vendor: { account: { kind: 'organization', slug: 'acme-corp' }, pulled_at: null, failing: false } },
    secret: null,
  });
  expect(JSON.stringify(copilot)).not.toContain(githubToken);
  expect(JSON.stringify(data(await ada.query('settings.apps.list', acme)))).not.toContain(githubToken);
  expect(errorOf(await ada.mutate('settings.apps.rotateSecret', { ...acme, app_id: copilot.app.id }))).toMatchObject({ status: 400, message: expect.stringContaining('receives no webhooks') });

  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, await t.token());
  const mine = log.body.data.filter((e: { target_id: string }) => e.target_id === id);
  expect(mine.map((e: { action: string }) => e.action)).toEqual(['app.enabled', 'app.disabled', 'app.secret_rotated', 'app.created']);
  for (const e of mine) expect(e).toMatchObject({ actor_type: 'user', actor_user_id: DEMO.users.ada, organization_id: DEMO.orgs.acme, target_type: 'app' });
  expect(JSON.stringify(log.body)).not.toContain(created.secret);
  expect(JSON.stringify(log.body)).not.toContain(rotated.secret);
});

test('the secret a provider made is stored in place of ours: Linear’s deliveries signed with it are taken, and it is never echoed or audited', async () => {
  const { app, secret: ours } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'linear', name: 'Linear from settings' }));
  const linearMade = `lin_wh_${randomBytes(24).toString('hex')}`;
  const stored = data(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: app.id, secret: linearMade }));
  expect(stored).toEqual({ ...app, has_secret: true, previous_secret_accepted_until: expect.any(String) });
  expect(JSON.stringify(stored)).not.toContain(linearMade);
  expect((await App.findByPk(app.id))!.webhook_secret).not.toContain(linearMade);

  const deliver = (secret: string) => {
    const d = linearDelivery(commentCreated, secret, { sentAt: new Date() });
    return request(t.runtime.app).post(`/ingest/linear/${app.id}`).set(d.headers).send(d.body.toString('utf8'));
  };
  expect((await deliver(linearMade)).status).toBe(202);
  // Ours keeps verifying for its grace, while Linear's settings are changed.
  expect((await deliver(ours)).status).toBe(202);
  expect((await deliver('another secret of 32 characters!')).status).toBe(401);

  // Nothing stored for a secret the provider would not show; the one stored keeps working.
  expect(errorOf(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: app.id, secret: 'short' }))).toMatchObject({ status: 400, message: expect.stringContaining('16 to 500 printable characters') });
  expect(errorOf(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: app.id }))).toMatchObject({ status: 400, message: expect.stringContaining('secret') });
  // A cross-site page, or an API token in place of the session, changes nothing either.
  const other = { ...acme, app_id: app.id, secret: `lin_wh_${randomBytes(24).toString('hex')}` };
  expect(errorOf(await ada.mutate('settings.apps.setSecret', other, { Origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  expect(errorOf(await ada.mutate('settings.apps.setSecret', other, { Authorization: `Bearer ${await t.token()}` }))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  expect(t.runtime.writers.apps.secretsOf((await App.findByPk(app.id))!)).toEqual([linearMade, ours]);
  expect((await deliver(linearMade)).status).toBe(202);
  // An AI vendor's app takes a new credential the same way.
  const cursor = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'cursor', credential: `key_${randomBytes(32).toString('hex')}` }));
  const cursorKey = `key_${randomBytes(32).toString('hex')}`;
  expect(data(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: cursor.app.id, secret: cursorKey }))).toMatchObject({ id: cursor.app.id, has_secret: true, vendor: { failing: false } });
  expect(errorOf(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: cursor.app.id, secret: 'short' }))).toMatchObject({ status: 400, message: expect.stringContaining('a Cursor Admin API key') });

  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, await t.token());
  const mine = log.body.data.filter((e: { target_id: string }) => e.target_id === app.id);
  expect(mine.map((e: { action: string; actor_user_id: string }) => [e.action, e.actor_user_id])).toEqual([
    ['app.secret_rotated', DEMO.users.ada],
    ['app.created', DEMO.users.ada],
  ]);
  expect(JSON.stringify(log.body)).not.toContain(linearMade);
});

test('endSecretGrace: the secret a rotation replaced, leaked, is refused at once instead of for 24 hours; audited as ada’s', async () => {
  const { app, secret: ours } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'linear', name: 'Linear leaked' }));
  const deliver = (secret: string) => {
    const d = linearDelivery(commentCreated, secret, { sentAt: new Date() });
    return request(t.runtime.app).post(`/ingest/linear/${app.id}`).set(d.headers).send(d.body.toString('utf8'));
  };
  const linearMade = `lin_wh_${randomBytes(24).toString('hex')}`;
  const stored = data(await ada.mutate('settings.apps.setSecret', { ...acme, app_id: app.id, secret: linearMade }));
  expect(Date.parse(stored.previous_secret_accepted_until) - Date.now()).toBeGreaterThan(23 * 3_600_000);
  expect((await deliver(ours)).status).toBe(202);

  // A cross-site page, or an API token in place of the session, ends nothing.
  expect(errorOf(await ada.mutate('settings.apps.endSecretGrace', { ...acme, app_id: app.id }, { Origin: 'https://evil.example' }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  expect(errorOf(await ada.mutate('settings.apps.endSecretGrace', { ...acme, app_id: app.id }, { Authorization: `Bearer ${await t.token()}` }))).toMatchObject({ status: 401 });
  expect((await deliver(ours)).status).toBe(202);

  const ended = data(await ada.mutate('settings.apps.endSecretGrace', { ...acme, app_id: app.id }));
  expect(ended).toEqual({ app: { ...stored, previous_secret_accepted_until: null }, ended: true });
  expect((await deliver(ours)).status).toBe(401);
  expect((await deliver(linearMade)).status).toBe(202);
  expect(data(await ada.query('settings.apps.list', acme)).find((a: { id: string }) => a.id === app.id)).toMatchObject({ has_secret: true, previous_secret_accepted_until: null });
  // Twice is one change.
  expect(data(await ada.mutate('settings.apps.endSecretGrace', { ...acme, app_id: app.id })).ended).toBe(false);
  // An AI vendor's app has no webhook secret.
  const cursor = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'cursor', credential: `key_${randomBytes(32).toString('hex')}` }));
  expect(errorOf(await ada.mutate('settings.apps.endSecretGrace', { ...acme, app_id: cursor.app.id }))).toMatchObject({ status: 400, message: expect.stringContaining('receives no webhooks') });

  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, await t.token());
  const mine = log.body.data.filter((e: { target_id: string }) => e.target_id === app.id);
  expect(mine.map((e: { action: string; actor_user_id: string }) => [e.action, e.actor_user_id])).toEqual([
    ['app.secret_grace_ended', DEMO.users.ada],
    ['app.secret_rotated', DEMO.users.ada],
    ['app.created', DEMO.users.ada],
  ]);
  expect(JSON.stringify(log.body)).not.toContain(linearMade);
});

test('boards mapped to a team and unmapped, a status counted as paused, an account linked; the teams to choose from', async () => {
  const { app } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'linear' }));
  const ofApp = { ...acme, app_id: app.id };
  const teams: { id: string; name: string }[] = data(await ada.query('settings.apps.teams', acme));
  expect(teams).toEqual(expect.arrayContaining([{ id: DEMO.teams.mobile, name: 'Mobile' }, { id: DEMO.teams.platform, name: 'Platform' }]));
  expect(teams.map((team) => team.id)).not.toContain(DEMO.teams.globexCore);
  // An incident tool's or the deployments API's boards go to repositories: the organization's, by full name.
  const repositories: { id: string; full_name: string }[] = data(await ada.query('settings.apps.repositories', acme));
  expect(repositories).toEqual(expect.arrayContaining([{ id: DEMO.repos.acmeApi, full_name: 'acme/api' }, { id: DEMO.repos.acmeWeb, full_name: 'acme/web' }]));
  expect(repositories.map((r) => r.id)).not.toContain(DEMO.repos.globexCore);

  expect(data(await ada.mutate('settings.apps.map', { ...ofApp, board: 'ENG', team_id: DEMO.teams.platform }))).toEqual({
    app_id: app.id,
    board: 'ENG',
    team_id: DEMO.teams.platform,
    repository_id: null,
    created_at: expect.any(String),
  });
  expect(data(await ada.mutate('settings.apps.map', { ...ofApp, board: 'MOB', team_id: DEMO.teams.mobile }))).toMatchObject({ board: 'MOB' });
  expect(data(await ada.mutate('settings.apps.unmap', { ...ofApp, board: 'MOB' }))).toEqual({ app_id: app.id, board: 'MOB' });
  expect(errorOf(await ada.mutate('settings.apps.unmap', { ...ofApp, board: 'MOB' }))).toMatchObject({ status: 404, message: `Board MOB of ${app.id} is not mapped` });
  expect(data(await ada.mutate('settings.apps.mapStatus', { ...ofApp, status: 'Blocked', category: 'paused' }))).toEqual({ app_id: app.id, status: 'Blocked', category: 'paused', tasks: 0 });
  expect(data(await ada.query('settings.apps.mappings', ofApp))).toEqual({
    app_id: app.id,
    boards: [expect.objectContaining({ board: 'ENG', team_id: DEMO.teams.platform })],
    statuses: [{ status: 'blocked', category: 'paused', created_at: expect.any(String) }],
  });
  // A git app's boards (its repositories' issues) too.
  expect(data(await ada.mutate('settings.apps.map', { ...acme, app_id: DEMO.gitApps.acmeGithub, board: 'acme/web', team_id: DEMO.teams.mobile }))).toMatchObject({ app_id: DEMO.gitApps.acmeGithub });

  expect(data(await ada.mutate('settings.apps.linkUser', { ...ofApp, user: DEMO.emails.linus, external_id: 'lin-user-42' }))).toEqual({
    app_id: app.id,
    user_id: DEMO.users.linus,
    external_user_id: 'lin-user-42',
    created_at: expect.any(String),
  });
  const linked = await t.get(`/v1/users/${DEMO.users.linus}/apps`, await t.token({ user: DEMO.emails.linus }));
  expect(linked.body.data).toContainEqual({ id: app.id, provider: 'linear', name: 'Linear', user_id: DEMO.users.linus, external_user_id: 'lin-user-42', created_at: expect.any(String) });

  const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, await t.token());
  const actions = log.body.data.filter((e: { target_id: string }) => e.target_id === app.id).map((e: { action: string; actor_user_id: string }) => [e.action, e.actor_user_id]);
  expect(actions).toEqual([
    ['app.user_linked', DEMO.users.ada],
    ['app.status_mapped', DEMO.users.ada],
    ['app.board_unmapped', DEMO.users.ada],
    ['app.board_mapped', DEMO.users.ada],
    ['app.board_mapped', DEMO.users.ada],
    ['app.created', DEMO.users.ada],
  ]);
});

test("an incident tool's board mapped to two repositories, then untied from one: the mappings list a row for each", async () => {
  const { app } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'opsgenie', name: 'Opsgenie (two repositories)' }));
  const ofApp = { ...acme, app_id: app.id };
  for (const repository of [DEMO.repos.acmeApi, DEMO.repos.acmeWeb]) {
    expect(data(await ada.mutate('settings.apps.map', { ...ofApp, board: 'checkout', repository_id: repository }))).toMatchObject({ board: 'checkout', team_id: null, repository_id: repository });
  }
  const rows = async () => (data(await ada.query('settings.apps.mappings', ofApp)) as { boards: { board: string; repository_id: string }[] }).boards.map((b) => [b.board, b.repository_id]);
  expect(await rows()).toEqual([['checkout', DEMO.repos.acmeApi], ['checkout', DEMO.repos.acmeWeb]]);
  expect(data(await ada.mutate('settings.apps.unmap', { ...ofApp, board: 'checkout', repository_id: DEMO.repos.acmeApi }))).toEqual({ app_id: app.id, board: 'checkout', repository_id: DEMO.repos.acmeApi });
  expect(await rows()).toEqual([['checkout', DEMO.repos.acmeWeb]]);
  expect(errorOf(await ada.mutate('settings.apps.unmap', { ...ofApp, board: 'checkout', repository_id: DEMO.repos.acmeApi }))).toMatchObject({
    status: 404,
    message: `Board checkout of ${app.id} is not mapped to repository ${DEMO.repos.acmeApi}`,
  });
  // A team is not where an incident tool's board goes.
  expect(errorOf(await ada.mutate('settings.apps.map', { ...ofApp, board: 'checkout', team_id: DEMO.teams.platform }))).toMatchObject({ status: 400, message: expect.stringContaining('is mapped to a repository') });
});

test('what to fix: an unknown provider, a points field on another provider, both or neither target, an unknown team or member', async () => {
  const { app } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'jira', name: 'Jira (mistakes)' }));
  const ofApp = { ...acme, app_id: app.id };
  const mistakes: [string, object, number, string][] = [
    ['settings.apps.create', { ...acme, provider: 'bitbucket' }, 400, 'provider must be one of jira, linear, slack, pagerduty, opsgenie, deployments, copilot, cursor, claude_code'],
    ['settings.apps.create', { ...acme, provider: 'linear', points_field: 'estimate' }, 400, 'Only Jira apps name a story points field; linear sends its own estimate'],
    ['settings.apps.create', { ...acme, provider: 'jira', name: ' ' }, 400, 'name must not be empty'],
    ['settings.apps.map', { ...ofApp, board: 'X' }, 400, 'Give either team_id (the board brings tasks) or repository_id (it brings incidents or deployments)'],
    ['settings.apps.map', { ...ofApp, board: 'X', team_id: DEMO.teams.platform, repository_id: DEMO.repos.acmeApi }, 400, 'Give either team_id'],
    ['settings.apps.map', { ...ofApp, board: 'X', team_id: DEMO.teams.globexCore }, 404, `No team ${DEMO.teams.globexCore} in organization ${DEMO.orgs.acme}`],
    ['settings.apps.mapStatus', { ...ofApp, status: 'Blocked', category: 'blocked' }, 400, 'category must be one of backlog, active, paused, done, canceled'],
    ['settings.apps.linkUser', { ...ofApp, user: 'nobody@demo.test', external_id: 'U1' }, 404, `No member nobody@demo.test in organization ${DEMO.orgs.acme}`],
  ];
  for (const [path, input, status, message] of mistakes) {
    const res = await ada.mutate(path, input);
    expect({ path, ...errorOf(res) }).toMatchObject({ path, status, message: expect.stringContaining(message) });
  }
  expect(data(await ada.query('settings.apps.mappings', ofApp))).toEqual({ app_id: app.id, boards: [], statuses: [] });
});

test('a collaborator or manager is refused; an admin of another organization finds none of its apps, even by id', async () => {
  const { app } = data(await ada.mutate('settings.apps.create', { ...acme, provider: 'slack', name: 'Slack acme' }));
  for (const user of [DEMO.users.linus, DEMO.users.grace]) {
    const who = await signInWithLink(t.runtime.app, user, origin);
    expect(errorOf(await who.query('settings.apps.list', acme))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(await who.mutate('settings.apps.create', { ...acme, provider: 'jira' }))).toMatchObject({ status: 403 });
    expect(errorOf(await who.mutate('settings.apps.disable', { ...acme, app_id: app.id }))).toMatchObject({ status: 403 });
    expect(errorOf(await who.mutate('settings.apps.endSecretGrace', { ...acme, app_id: app.id }))).toMatchObject({ status: 403 });
    expect(errorOf(await who.mutate('settings.apps.setSecret', { ...acme, app_id: app.id, secret: 'xoxb-a-secret-slack-made-0123456789' }))).toMatchObject({ status: 403 });
  }

  const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
  const globex = { organization_id: DEMO.orgs.globex };
  for (const [path, input] of [
    ['settings.apps.rotateSecret', { ...globex, app_id: app.id }],
    ['settings.apps.endSecretGrace', { ...globex, app_id: app.id }],
    ['settings.apps.setSecret', { ...globex, app_id: app.id, secret: 'xoxb-a-secret-slack-made-0123456789' }],
    ['settings.apps.disable', { ...globex, app_id: app.id }],
    ['settings.apps.map', { ...globex, app_id: app.id, board: 'X', team_id: DEMO.teams.globexCore }],
    ['settings.apps.unmap', { ...globex, app_id: app.id, board: 'X' }],
    ['settings.apps.mapStatus', { ...globex, app_id: app.id, status: 'Blocked', category: 'paused' }],
    ['settings.apps.linkUser', { ...globex, app_id: app.id, user: DEMO.emails.margaret, external_id: 'U1' }],
    ['settings.apps.map', { ...globex, app_id: DEMO.gitApps.acmeGithub, board: 'acme/api', team_id: DEMO.teams.globexCore }],
  ] as const) {
    expect({ path, ...errorOf(await margaret.mutate(path, input)) }).toMatchObject({ path, status: 404 });
  }
  expect(errorOf(await margaret.query('settings.apps.mappings', { ...globex, app_id: app.id }))).toMatchObject({ status: 404 });
  // Under acme's id she is no admin.
  expect(errorOf(await margaret.mutate('settings.apps.disable', { ...acme, app_id: app.id }))).toMatchObject({ status: 403 });
  expect(errorOf(await margaret.query('settings.apps.repositories', acme))).toMatchObject({ status: 403 });
  expect(JSON.stringify(data(await margaret.query('settings.apps.list', globex)))).not.toContain(app.id);
  expect((await App.findByPk(app.id))!.is_active).toBeTruthy();
  expect(errorOf(await ada.query('settings.apps.list', { organization_id: 'org_nothing' }))).toMatchObject({ status: 404 });
});
