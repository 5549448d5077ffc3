import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { browserFor, sessionCookieOf, SettingsBrowser, signInWithLink } from '../support/peers/settingsBrowser';
import { createLoginLink } from '../../src/auth/signIn';
import { publicBase } from '../../src/config';
import { appCli } from '../support/cli';
import { MemberWriter } from '../../src/services/people/members';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { deliverToGithub, githubExamples } from '../support/peers/ingest';

/**
 * The settings' procedures (docs/settings.md) as the page calls them: signed in with a one-time link, a session cookie,
 * the CSRF token on every change. What they refuse: API tokens, cookies on the data procedures, foreign origins,
 * other people's and other organizations' things.
 */

let t: TestApp;
let origin: string;
let ada: SettingsBrowser;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
  origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
});
afterAll(async () => t?.close());

const data = (res: request.Response) => res.body.result.data;
const errorOf = (res: request.Response) => ({ status: res.status, code: res.body.error?.data?.code, message: res.body.error?.message as string });

describe('one-time sign-in links', () => {
  test('the link page shows a button and reads the token from the fragment, never the query', async () => {
    const res = await request(t.runtime.app).get('/auth/link');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<form method="post" action="/auth/link">');
    expect(res.text).toContain('<script src="/settings/sign-in-link.js"></script>');
  });

  test('a link signs in once: an HttpOnly, SameSite=Lax session cookie, then the settings', async () => {
    const { token } = await createLoginLink(DEMO.users.grace);
    const first = await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/settings/');
    const cookie = (first.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('platform_session='))!;
    expect(cookie).toMatch(/^platform_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    const again = await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token });
    expect(again.status).toBe(400);
    expect(again.text).toContain('A sign-in link works once, within ten minutes');
  });

  test('an expired link, a made-up one, or one posted from another site signs no one in', async () => {
    const expired = await createLoginLink(DEMO.users.grace, new Date(Date.now() - 11 * 60_000));
    const post = (token: string, from = origin) => request(t.runtime.app).post('/auth/link').set('Origin', from).type('form').send({ token });
    expect((await post(expired.token)).status).toBe(400);
    expect((await post('login_nothing')).status).toBe(400);
    const fresh = await createLoginLink(DEMO.users.grace);
    const foreign = await post(fresh.token, 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(sessionCookieOf(foreign)).toBeUndefined();
    // The refused attempt did not use the link up.
    expect((await post(fresh.token)).status).toBe(303);
  });

  test('without an identity provider, /auth/login says how to get a link', async () => {
    const res = await request(t.runtime.app).get('/auth/login');
    expect(res.status).toBe(200);
    expect(res.text).toContain('npm run tokens -- login-link --user you@example.com');
  });

  test('a form the sign-in cannot read is a page saying so, not an error envelope', async () => {
    const res = await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('The form could not be read');
  });

  test('npm run tokens -- login-link prints the link, the token in its fragment; it signs in once', async () => {
    const cli = appCli(t, 'tokens');
    const run = await cli('login-link', '--user', DEMO.emails.grace);
    expect(run.code).toBe(0);
    const link = /(http:\/\/\S+\/auth\/link#(login_[0-9A-Za-z]{36}))/.exec(run.stdout);
    expect(link?.[1].startsWith(`${publicBase(t.config)}/auth/link#`)).toBe(true);
    const post = () => request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token: link![2] });
    expect((await post()).status).toBe(303);
    expect((await post()).status).toBe(400);

    const inactive = await cli('login-link', '--user', DEMO.emails.inactive);
    expect(inactive.code).toBe(1);
    expect(inactive.stderr).toContain('is deactivated');
    expect((await cli('login-link')).code).toBe(2);
  });

  test('a deactivated user cannot use a link made before', async () => {
    const link = await createLoginLink(DEMO.users.inactive);
    const res = await request(t.runtime.app).post('/auth/link').set('Origin', origin).type('form').send({ token: link.token });
    expect(res.status).toBe(403);
    expect(res.text).toContain('is deactivated');
  });
});

describe('the page’s files', () => {
  test('the bundled scripts, the markup and the styles are served; the TypeScript and its tsconfig are not', async () => {
    const get = (path: string) => request(t.runtime.app).get(path);
    const page = await get('/settings/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="/settings/settings.js" defer></script>');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    for (const script of ['/settings/settings.js', '/settings/sign-in-link.js']) {
      const res = await get(script);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(res.text).not.toMatch(/^\s*(import|export) /m);
    }
    expect((await get('/settings/settings.css')).status).toBe(200);
    for (const source of ['/settings/script/api.ts', '/settings/script/settings.ts', '/settings/tsconfig.json']) {
      expect((await get(source)).status).toBe(404);
    }
  });
});

describe('settings.session', () => {
  test('the signed-in user, their organizations with their role, and the CSRF token', async () => {
    const res = await ada.query('settings.session');
    expect(res.status).toBe(200);
    expect(data(res)).toEqual({
      user: { id: DEMO.users.ada, name: expect.any(String), email: DEMO.emails.ada },
      organizations: [{ id: DEMO.orgs.acme, name: 'Acme Corp', role: 'admin' }],
      csrf_token: ada.csrfToken,
      expires_at: expect.any(String),
    });
  });

  test('without a session: 401 saying where to sign in', async () => {
    const res = await request(t.runtime.app).get('/trpc/settings.session');
    expect(errorOf(res)).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'Not signed in. Sign in again at /auth/login' });
    const made = await request(t.runtime.app).get('/trpc/settings.session').set('Cookie', 'platform_session=made-up');
    expect(errorOf(made)).toMatchObject({ status: 401, message: 'Your session has ended. Sign in again at /auth/login' });
  });

  test('an API token is refused on settings.*, even beside a valid session', async () => {
    const token = await t.token();
    const res = await ada.query('settings.session', undefined, { Authorization: `Bearer ${token}` });
    expect(errorOf(res)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(errorOf(res).message).toContain('not an API token');
  });

  test('the session cookie never authorizes the data procedures or the REST API', async () => {
    expect((await ada.query('users.list', {})).status).toBe(401);
    expect((await request(t.runtime.app).get('/v1/users').set('Cookie', ada.cookie)).status).toBe(401);
  });

  test('a batch mixing settings.* with data procedures is refused whole', async () => {
    const res = await request(t.runtime.app).get('/trpc/settings.session,users.list?batch=1&input={}').set('Cookie', ada.cookie);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('cannot mix settings.* or dashboards.* calls');
  });
});

describe('cross-site changes', () => {
  const create = (headers: Record<string, string>) => ada.mutate('settings.apiTokens.create', { name: 'cross-site' }, headers);

  test('without the CSRF token, with a wrong one, from another origin or with no Origin: 403, nothing made', async () => {
    const before = data(await ada.query('settings.apiTokens.list')).length;
    const refusals = [
      await create({ 'X-CSRF-Token': '' }),
      await create({ 'X-CSRF-Token': 'x'.repeat(43) }),
      await create({ Origin: 'https://evil.example' }),
      await request(t.runtime.app).post('/trpc/settings.apiTokens.create').set({ Cookie: ada.cookie, 'X-CSRF-Token': ada.csrfToken, 'Content-Type': 'application/json' }).send('{"name":"x"}'),
    ];
    for (const res of refusals) expect(errorOf(res)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(errorOf(refusals[2]).message).toBe('A settings change from https://evil.example is refused: only pages of this service may make one');
    expect(data(await ada.query('settings.apiTokens.list'))).toHaveLength(before);
  });

  test('the origin the request was sent to is the page’s own, too (a service reached by another name than PUBLIC_URL)', async () => {
    const host = 'settings.internal:8080';
    const res = await ada.mutate('settings.apiTokens.create', { name: 'own origin' }, { Host: host, Origin: `http://${host}` });
    expect(res.status).toBe(200);
  });
});

describe('own API tokens', () => {
  test('generate a token: shown once, listed by preview only, works on the REST API, and revoked it stops', async () => {
    const created = await ada.mutate('settings.apiTokens.create', { name: 'laptop', expires_in_days: 30 });
    expect(created.status).toBe(200);
    const { id, token, expires_at } = data(created);
    expect(token).toMatch(/^plat_/);
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const listed = data(await ada.query('settings.apiTokens.list'));
    const mine = listed.find((x: { id: string }) => x.id === id);
    expect(mine).toMatchObject({ name: 'laptop', status: 'active', kind: 'api', user_id: DEMO.users.ada });
    expect(JSON.stringify(listed)).not.toContain(token);

    expect((await t.get('/v1/users/usr_ada', token)).status).toBe(200);
    const revoked = await ada.mutate('settings.apiTokens.revoke', { token_id: id });
    expect(data(revoked)).toMatchObject({ id, status: 'revoked' });
    let status = 200;
    for (const deadline = Date.now() + 7_000; status === 200 && Date.now() < deadline; ) {
      status = (await t.get('/v1/users/usr_ada', token)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(401);
  });

  test('a token narrowed to organizations or teams that are not the user’s is refused with what to fix', async () => {
    const res = await ada.mutate('settings.apiTokens.create', { name: 'x', organization_ids: [DEMO.orgs.globex] });
    expect(errorOf(res)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(errorOf(res).message).toContain("is not a member of organization 'org_globex'");
    const bad = await ada.mutate('settings.apiTokens.create', { name: '', expires_in_days: 0 });
    expect(errorOf(bad)).toMatchObject({ status: 400 });
  });

  test('someone else’s token cannot be revoked, nor told apart from one that does not exist', async () => {
    const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
    const { id } = data(await grace.mutate('settings.apiTokens.create', { name: 'grace' }));
    const theirs = await ada.mutate('settings.apiTokens.revoke', { token_id: id });
    const nobody = await ada.mutate('settings.apiTokens.revoke', { token_id: 'tok_nothing' });
    expect(errorOf(theirs)).toEqual({ status: 404, code: 'NOT_FOUND', message: `No token with id '${id}'` });
    expect(errorOf(nobody)).toEqual({ status: 404, code: 'NOT_FOUND', message: "No token with id 'tok_nothing'" });
    expect(data(await grace.query('settings.apiTokens.list')).find((x: { id: string }) => x.id === id).status).toBe('active');
  });
});

describe('organization administration', () => {
  test('a collaborator or manager cannot reach the admin procedures; an unknown organization is 404', async () => {
    const linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
    const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
    for (const who of [linus, grace]) {
      expect(errorOf(await who.query('settings.webhooks.list', { organization_id: DEMO.orgs.acme }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(errorOf(await who.mutate('settings.scimTokens.create', { organization_id: DEMO.orgs.acme, name: 'x' }))).toMatchObject({ status: 403 });
    }
    expect(errorOf(await ada.query('settings.gitApps.list', { organization_id: 'org_nothing' }))).toMatchObject({ status: 404 });
  });

  test('an admin of one organization reaches nothing of another, even by id', async () => {
    const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
    const created = data(await margaret.mutate('settings.webhooks.create', { organization_id: DEMO.orgs.globex, url: 'https://hooks.example/globex' }));
    // ada names globex's endpoint under her own organization: not found; under globex: forbidden.
    expect(errorOf(await ada.mutate('settings.webhooks.rotateSecret', { organization_id: DEMO.orgs.acme, endpoint_id: created.endpoint.id }))).toMatchObject({ status: 404 });
    expect(errorOf(await ada.mutate('settings.webhooks.rotateSecret', { organization_id: DEMO.orgs.globex, endpoint_id: created.endpoint.id }))).toMatchObject({ status: 403 });
    expect(JSON.stringify(data(await ada.query('settings.webhooks.list', { organization_id: DEMO.orgs.acme })))).not.toContain(created.endpoint.id);
  });

  test('webhooks: create (secret once), change events, disable, enable, rotate; each in the audit log by who did it', async () => {
    const org = { organization_id: DEMO.orgs.acme };
    const created = data(await ada.mutate('settings.webhooks.create', { ...org, url: 'https://hooks.example/acme', events: ['team.created'] }));
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.endpoint.id;
    const listed = data(await ada.query('settings.webhooks.list', org));
    expect(listed.find((e: { id: string }) => e.id === id)).toMatchObject({ url: 'https://hooks.example/acme', events: ['team.created'], is_active: true });
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    expect(data(await ada.mutate('settings.webhooks.updateEvents', { ...org, endpoint_id: id, events: null })).events).toBeNull();
    expect(data(await ada.mutate('settings.webhooks.disable', { ...org, endpoint_id: id }))).toMatchObject({ is_active: false, disabled_reason: expect.stringContaining(`by ${DEMO.users.ada}`) });
    expect(data(await ada.mutate('settings.webhooks.enable', { ...org, endpoint_id: id })).endpoint.is_active).toBe(true);
    const rotated = data(await ada.mutate('settings.webhooks.rotateSecret', { ...org, endpoint_id: id }));
    expect(rotated.secret).not.toBe(created.secret);

    const adaToken = await t.token();
    const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, adaToken);
    expect(log.status).toBe(200);
    const mine = log.body.data.filter((e: { target_id: string }) => e.target_id === id);
    expect(mine.map((e: { action: string }) => e.action)).toEqual([
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.enabled',
      'webhook_endpoint.disabled',
      'webhook_endpoint.events_updated',
      'webhook_endpoint.created',
    ]);
    for (const e of mine) expect(e).toMatchObject({ actor_type: 'user', actor_user_id: DEMO.users.ada, organization_id: DEMO.orgs.acme });
    expect(JSON.stringify(log.body)).not.toContain(created.secret);
    expect(JSON.stringify(log.body)).not.toContain(rotated.secret);
  });

  test('a URL webhooks must not go to, or an unknown event, is a 400 saying so', async () => {
    const org = { organization_id: DEMO.orgs.acme };
    const scheme = await ada.mutate('settings.webhooks.create', { ...org, url: 'ftp://hooks.example/x' });
    expect(errorOf(scheme)).toMatchObject({ status: 400, message: expect.stringContaining('Cannot send webhooks to ftp://hooks.example/x') });
    const unknown = await ada.mutate('settings.webhooks.create', { ...org, url: 'https://hooks.example/x', events: ['nothing.happened'] });
    expect(errorOf(unknown)).toMatchObject({ status: 400 });
    expect(errorOf(unknown).message).toContain('team.created');
  });

  test('git apps, SCIM and OTLP tokens: made with their secret once, revoked, audited; managed settings for Claude Code', async () => {
    const org = { organization_id: DEMO.orgs.acme };
    const app = data(await ada.mutate('settings.gitApps.create', { ...org, provider: 'github', name: 'GitHub acme' }));
    expect(app.git_app.webhook_url).toBe(`${publicBase(t.config)}/ingest/github/${app.git_app.id}`);
    expect(app.secret).toBeTruthy();
    expect(app.provider_settings).toMatch(/^Content type application\/json; events: Pushes/);
    // The registry's git providers, named by the writer's refusal; an app's provider is not one.
    for (const provider of ['git', 'jira']) {
      expect(errorOf(await ada.mutate('settings.gitApps.create', { ...org, provider, name: 'x' }))).toEqual({ status: 400, code: 'VALIDATION_ERROR', message: 'provider must be one of github, gitlab, bitbucket' });
    }
    expect(JSON.stringify(data(await ada.query('settings.gitApps.list', org)))).not.toContain(app.secret);
    // Rotated, then the secret it replaced refused at once (it leaked): GitHub's deliveries signed with it are refused.
    const ping = (secret: string) => deliverToGithub(t, app.git_app.id, secret, { event: 'ping', payload: githubExamples('ping')[0] });
    const rotated = data(await ada.mutate('settings.gitApps.rotateSecret', { ...org, git_app_id: app.git_app.id }));
    expect(rotated.git_app.previous_secret_accepted_until).toEqual(expect.any(String));
    expect((await ping(app.secret)).status).toBe(200);
    expect(data(await ada.mutate('settings.gitApps.endSecretGrace', { ...org, git_app_id: app.git_app.id }))).toEqual({ git_app: { ...rotated.git_app, previous_secret_accepted_until: null }, ended: true });
    expect((await ping(app.secret)).status).toBe(401);
    expect((await ping(rotated.secret)).status).toBe(200);
    expect(data(await ada.mutate('settings.gitApps.endSecretGrace', { ...org, git_app_id: app.git_app.id })).ended).toBe(false);
    const margaret = await signInWithLink(t.runtime.app, DEMO.users.margaret, origin);
    expect(errorOf(await margaret.mutate('settings.gitApps.endSecretGrace', { organization_id: DEMO.orgs.globex, git_app_id: app.git_app.id }))).toMatchObject({ status: 404 });
    const gitAudit = (await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=100`, await t.token())).body.data.filter((e: { target_id: string }) => e.target_id === app.git_app.id);
    expect(gitAudit.map((e: { action: string; actor_user_id: string }) => [e.action, e.actor_user_id])).toEqual([
      ['git_app.secret_grace_ended', DEMO.users.ada],
      ['git_app.secret_rotated', DEMO.users.ada],
      ['git_app.created', DEMO.users.ada],
    ]);

    const scim = data(await ada.mutate('settings.scimTokens.create', { ...org, name: 'Okta' }));
    expect(scim).toMatchObject({ token: expect.stringMatching(/^scim_/), scim_base_url: `${publicBase(t.config)}/scim/v2` });
    expect((await request(t.runtime.app).get('/scim/v2/Users?count=1').set('Authorization', `Bearer ${scim.token}`)).status).toBe(200);
    expect(data(await ada.mutate('settings.scimTokens.revoke', { ...org, token_id: scim.id })).status).toBe('revoked');

    const otlp = data(await ada.mutate('settings.otlpTokens.create', { ...org, name: 'Claude Code' }));
    expect(otlp.managed_settings.env.OTEL_EXPORTER_OTLP_HEADERS).toBe(`Authorization=Bearer ${otlp.token}`);
    expect(data(await ada.mutate('settings.otlpTokens.managedSettings', { ...org, token: otlp.token }))).toEqual(otlp.managed_settings);
    // A SCIM token id revoked as an OTLP token: not found.
    expect(errorOf(await ada.mutate('settings.otlpTokens.revoke', { ...org, token_id: scim.id })).status).toBe(404);
    expect(data(await ada.mutate('settings.otlpTokens.revoke', { ...org, token_id: otlp.id })).status).toBe('revoked');
    const revokedSettings = await ada.mutate('settings.otlpTokens.managedSettings', { ...org, token: otlp.token });
    expect(errorOf(revokedSettings)).toMatchObject({ status: 400 });
    expect(errorOf(revokedSettings).message).not.toContain(otlp.token);

    const log = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?actor_user_id=${DEMO.users.ada}&per_page=100`, await t.token());
    const actions = log.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['git_app.created', 'scim_token.created', 'scim_token.revoked', 'otlp_token.created', 'otlp_token.revoked']));
    expect(JSON.stringify(log.body)).not.toMatch(/scim_[0-9A-Za-z]{36}|otlp_[0-9A-Za-z]{36}/);
  });

  test('the audit log is for the organization’s admins: a manager gets 403, a filter by action narrows it', async () => {
    const grace = await t.token({ user: DEMO.emails.grace });
    expect((await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log`, grace)).status).toBe(403);
    const ada = await t.token();
    const only = await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?action=git_app.created`, ada);
    expect(only.status).toBe(200);
    expect(only.body.data.length).toBeGreaterThan(0);
    for (const e of only.body.data) expect(e.action).toBe('git_app.created');
    expect((await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?action=nothing`, ada)).status).toBe(400);
  });
});

describe('ending sessions', () => {
  test('logout ends the session at once; the cookie is cleared', async () => {
    const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
    const out = await request(t.runtime.app).post('/auth/logout').set({ Cookie: grace.cookie, Origin: origin, 'X-CSRF-Token': grace.csrfToken });
    expect(out.status).toBe(303);
    expect((out.headers['set-cookie'] as unknown as string[]).some((c) => c.startsWith('platform_session=;') && c.includes('Max-Age=0'))).toBe(true);
    expect((await grace.query('settings.session')).status).toBe(401);
  });

  test('a logout from another site is refused and the session lives on', async () => {
    const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
    const out = await request(t.runtime.app).post('/auth/logout').set({ Cookie: grace.cookie, Origin: 'https://evil.example' });
    expect(out.status).toBe(403);
    expect((await grace.query('settings.session')).status).toBe(200);
  });

  test('a member suspended in their only organization loses the session at once; reactivated, it does not come back', async () => {
    const linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
    expect((await linus.query('settings.session')).status).toBe(200);
    const member = await t.runtime.writers.members.find(DEMO.orgs.acme, DEMO.users.linus);
    const input = { email: member!.user.email, name: member!.user.name, role: member!.membership.role, externalId: null, title: null };
    await t.runtime.writers.members.update(DEMO.orgs.acme, DEMO.users.linus, { ...input, active: false });
    const ended = await linus.query('settings.session');
    // Ended as the suspension committed, not only refused when next used.
    expect(errorOf(ended)).toMatchObject({ status: 401, message: 'Your session has ended. Sign in again at /auth/login' });
    await t.runtime.writers.members.update(DEMO.orgs.acme, DEMO.users.linus, { ...input, active: true });
    expect((await linus.query('settings.session')).status).toBe(401);
    // Signing in again works.
    const again = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
    expect((await again.query('settings.session')).status).toBe(200);
  });

  test('suspended by another instance (its change not yet read here): the next request ends the session', async () => {
    const barbara = await signInWithLink(t.runtime.app, DEMO.users.barbara, origin);
    // A runner of its own has none of this instance's listeners, as a change committed elsewhere.
    const elsewhere = new MemberWriter(new ChangeRunner(t.runtime.sequelize));
    const member = await elsewhere.find(DEMO.orgs.acme, DEMO.users.barbara);
    const input = { email: member!.user.email, name: member!.user.name, role: member!.membership.role, externalId: null, title: null };
    await elsewhere.update(DEMO.orgs.acme, DEMO.users.barbara, { ...input, active: false });
    const ended = await barbara.query('settings.session');
    expect(errorOf(ended)).toMatchObject({ status: 401, message: 'Your session has ended: your account was deactivated or suspended. Sign in again at /auth/login' });
    await elsewhere.update(DEMO.orgs.acme, DEMO.users.barbara, { ...input, active: true });
    expect((await barbara.query('settings.session')).status).toBe(401);
  });

  test('a browser that kept a cookie from a session the server ended cannot change anything either', async () => {
    const grace = await signInWithLink(t.runtime.app, DEMO.users.grace, origin);
    await t.runtime.signIn.sessions.endForUser(DEMO.users.grace);
    const stale = browserFor(t.runtime.app, grace.cookie, grace.csrfToken, origin);
    expect((await stale.mutate('settings.apiTokens.create', { name: 'stale' })).status).toBe(401);
  });
});
