import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AiVendorSource, ConnectionState, HistoryImport, Organization, UserGitApp } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { deliverToGithub, githubExamples } from '../support/peers/ingest';
import { issueCreated, linearDelivery } from '../support/peers/linear/webhooks';
import { withSecret } from '../support/webhooks';
import { publicBase } from '../../src/config';
import { setupView, SetupSource } from '../../src/services/apps/setup';
import { ConnectionStates, recordDelivery } from '../../src/services/apps/connectionStates';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { noteUnmatched } from '../../src/services/people/unmatchedAccounts';

/**
 * The setup view (`settings.setup`, docs/settings.md#setup): each source of an organization with its state, its last
 * delivery and refusal (the service's own words, never what was sent) and the next step; refusals recorded at most
 * once a minute per connection and reason; read in a fixed number of statements; for the organization's admins only.
 */

let t: TestApp;
let ada: SettingsBrowser;
let origin: string;
beforeAll(async () => {
  t = await startTestApp();
  origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
});
afterAll(async () => t?.close());

const data = (res: request.Response) => res.body.result.data;
const acme = { organization_id: DEMO.orgs.acme };

/** A new organization of its own, so its sources are only the test's. */
async function freshOrganization(): Promise<string> {
  const id = `org_setup_${randomBytes(4).toString('hex')}`;
  await Organization.create({ id, name: id, created_at: new Date() });
  return id;
}

const view = (organizationId: string, now = new Date()) => setupView(organizationId, t.runtime.writers.apps.providers, publicBase(t.config), now);
const sourceOf = (sources: SetupSource[], id: string) => {
  const found = sources.find((s) => s.id === id);
  if (!found) throw new Error(`no source ${id} in ${JSON.stringify(sources.map((s) => s.id))}`);
  return found;
};

async function githubApp(name: string, organizationId: string = DEMO.orgs.acme) {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(organizationId, 'github', name);
  return { id: gitApp.id, secret };
}

/** A push as GitHub sends it (its own example). */
const push = githubExamples('push')[0];

test('a source waiting, one receiving and one failing, each with its reason and next step; never the body or a header', async () => {
  const waiting = await githubApp('Waiting GitHub');
  const receiving = await githubApp('Receiving GitHub');
  const failing = await githubApp('Failing GitHub');

  expect((await deliverToGithub(t, receiving.id, receiving.secret, { event: 'ping', payload: { zen: 'Keep it simple.', hook_id: 1 } })).status).toBe(200);
  const pushed = await deliverToGithub(t, receiving.id, receiving.secret, { event: 'push', payload: push });
  expect(pushed.status).toBe(200);
  const marker = `body-${randomBytes(6).toString('hex')}`;
  const forged = `sha256=${'f'.repeat(64)}`;
  const refused = await deliverToGithub(t, failing.id, failing.secret, { event: 'push', payload: { marker }, signature: forged });
  expect(refused.status).toBe(401);

  const { sources, counts } = await view(DEMO.orgs.acme);
  expect(sourceOf(sources, waiting.id)).toEqual({
    id: waiting.id,
    kind: 'git_app',
    name: 'Waiting GitHub',
    provider: 'github',
    provider_name: 'GitHub',
    receives: 'webhook',
    active: true,
    state: 'waiting',
    quiet: false,
    last_delivery: null,
    last_refusal: null,
    unlinked_accounts: 0,
    history: { credential: false, last_import: null },
    next_step: expect.stringContaining('Paste the webhook URL and secret into GitHub’s webhook settings'),
  });
  // Receiving, and nothing else to fix: its last year is next.
  expect(sourceOf(sources, receiving.id)).toMatchObject({
    state: 'receiving',
    last_delivery: { at: expect.any(String), event: 'push' },
    last_refusal: null,
    next_step: `Read its last year from GitHub’s API: store a read-only credential (npm run gitapps -- set-credential --git-app ${receiving.id} --token-file <file>; docs/history.md says which), then run npm run import -- github --git-app ${receiving.id}.`,
  });
  expect(sourceOf(sources, failing.id)).toMatchObject({
    state: 'failing',
    last_delivery: null,
    last_refusal: { at: expect.any(String), reason: 'signature does not match the secret' },
    next_step: expect.stringContaining(`npm run gitapps -- rotate-secret ${failing.id}`),
  });
  expect(counts).toMatchObject({ receiving: expect.any(Number), failing: expect.any(Number), waiting: expect.any(Number) });
  expect(counts.failing).toBeGreaterThanOrEqual(1);
  const said = JSON.stringify(sources);
  for (const sent of [marker, forged, failing.secret, receiving.secret, 'Keep it simple.']) expect(said).not.toContain(sent);
  // The delivery is answered with the provider's own words; the view keeps only the service's.
  expect(refused.body.error.message).toContain('X-Hub-Signature-256');

  // Fixed at the provider: receiving again, the refusal still shown for what it was.
  expect((await deliverToGithub(t, failing.id, failing.secret, { event: 'push', payload: push })).status).toBe(200);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, failing.id)).toMatchObject({ state: 'receiving', last_refusal: { reason: 'signature does not match the secret' }, next_step: expect.stringContaining('set-credential') });
});

test('its history: a credential stored, then the last import with what it found; a refused credential is the next step', async () => {
  const read = await githubApp('History GitHub');
  expect((await deliverToGithub(t, read.id, read.secret, { event: 'push', payload: push })).status).toBe(200);
  const credentials = new ConnectionCredentials(ChangeRunner.for(t.runtime.sequelize), new SecretBox(() => secretsKeyFor(t.config)), providerCatalog());
  await credentials.setCredential({ type: 'git_app', id: read.id }, { kind: 'token', token: 'github_pat_setup' });
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, read.id)).toMatchObject({
    history: { credential: true, last_import: null },
    next_step: `Read its last year from GitHub’s API now with npm run import -- github --git-app ${read.id} (the daily catch-up reads it within a day otherwise).`,
  });

  const at = new Date('2026-11-20T10:00:00Z');
  const run = { connection_id: read.id, organization_id: DEMO.orgs.acme, connection_type: 'git_app' as const, base_url: null, started_at: at, updated_at: at };
  await HistoryImport.create({ ...run, finished_at: new Date(at.getTime() + 60_000), outcome: 'complete', items_read: 120, items_found: 3 });
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, read.id)).toMatchObject({
    history: { credential: true, last_import: { started_at: '2026-11-20T10:00:00.000Z', finished_at: '2026-11-20T10:01:00.000Z', outcome: 'complete', read: 120, found: 3, message: null } },
    next_step: null,
  });

  await HistoryImport.update({ outcome: 'refused', message: 'GitHub refused the credential reading acme/api (401: Bad credentials)' }, { where: { connection_id: read.id } });
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, read.id)).toMatchObject({
    history: { last_import: { outcome: 'refused', message: 'GitHub refused the credential reading acme/api (401: Bad credentials)' } },
    next_step: `Replace the credential its history is read with (npm run gitapps -- set-credential --git-app ${read.id} --token-file <file>): GitHub refused it.`,
  });
  // A provider whose history is not read has none.
  expect((await view(DEMO.orgs.acme)).sources.filter((s) => s.provider === 'jira' || s.kind === 'scim_token').map((s) => s.history)).not.toContainEqual(expect.anything());
});

test('a ping alone is a first delivery: receiving, its first and last delivery the ping’s', async () => {
  const pinged = await githubApp('Pinged GitHub');
  expect((await deliverToGithub(t, pinged.id, pinged.secret, { event: 'ping', payload: { zen: 'Design for failure.', hook_id: 2 } })).status).toBe(200);
  const row = (await ConnectionState.findByPk(pinged.id))!;
  expect(row).toMatchObject({ organization_id: DEMO.orgs.acme, last_event: 'ping', last_refusal_at: null });
  expect(row.first_delivery_at).toEqual(row.last_delivery_at);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, pinged.id)).toMatchObject({ state: 'receiving', last_delivery: { event: 'ping' } });
});

test('a flood of bad signatures is one write a minute; another reason, or the same after a stored delivery, is written at once', async () => {
  const flooded = await githubApp('Flooded GitHub');
  const bad = () => deliverToGithub(t, flooded.id, flooded.secret, { event: 'push', payload: push, signature: `sha256=${'0'.repeat(64)}` });
  expect((await bad()).status).toBe(401);
  const first = (await ConnectionState.findByPk(flooded.id))!.last_refusal_at;
  expect(first).not.toBeNull();
  const statements = jest.spyOn(t.runtime.sequelize, 'query');
  try {
    for (let i = 0; i < 20; i++) expect((await bad()).status).toBe(401);
    // Each refusal still looks its git app up; none writes its state again.
    expect(statements.mock.calls.length).toBeGreaterThanOrEqual(20);
    expect(statements.mock.calls.map(([sql]) => String(sql)).filter((sql) => sql.includes('connection_states'))).toEqual([]);
  } finally {
    statements.mockRestore();
  }
  expect((await ConnectionState.findByPk(flooded.id))!.last_refusal_at).toEqual(first);

  // Stored, then refused again within the minute: the refusal is news, and written.
  expect((await deliverToGithub(t, flooded.id, flooded.secret, { event: 'push', payload: push })).status).toBe(200);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, flooded.id).state).toBe('receiving');
  expect((await bad()).status).toBe(401);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, flooded.id).state).toBe('failing');
});

test('a refusal the database cannot record is still answered with its reason, and nothing is left unhandled', async () => {
  const shaken = await githubApp('Shaken GitHub');
  const unhandled: unknown[] = [];
  const note = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', note);
  const refused = jest.spyOn(ConnectionStates.prototype, 'refused').mockRejectedValue(new Error('SQLITE_MISUSE: Database handle is closed'));
  try {
    const answer = await deliverToGithub(t, shaken.id, shaken.secret, { event: 'push', payload: push, signature: `sha256=${'0'.repeat(64)}` });
    expect([answer.status, answer.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(refused).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    refused.mockRestore();
    process.off('unhandledRejection', note);
  }
});

test('an app: a stored delivery, then disabled: its refusals say so and the next step is to enable it; an unknown id leaves nothing', async () => {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'linear', { name: 'Linear setup' }));
  const deliver = () => {
    const d = linearDelivery(issueCreated, secret, { sentAt: new Date(), id: randomBytes(8).toString('hex') });
    return request(t.runtime.app).post(`/ingest/linear/${app.id}`).set(d.headers).send(d.body.toString('utf8'));
  };
  expect((await deliver()).status).toBe(200);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, app.id)).toMatchObject({
    kind: 'app',
    provider_name: 'Linear',
    state: 'receiving',
    last_delivery: { event: 'Issue:create' },
    next_step: expect.stringContaining(`npm run apps -- map --app ${app.id}`),
  });

  await t.runtime.writers.apps.setActive(app.id, false);
  expect((await deliver()).status).toBe(403);
  expect(sourceOf((await view(DEMO.orgs.acme)).sources, app.id)).toMatchObject({
    active: false,
    state: 'failing',
    last_refusal: { reason: 'the connection is disabled' },
    next_step: expect.stringContaining(`npm run apps -- enable ${app.id}`),
  });
  await t.runtime.writers.apps.setActive(app.id, true);

  const before = await ConnectionState.count();
  const stranger = await deliverToGithub(t, 'gapp_nobody', 'x'.repeat(32), { event: 'push', payload: push, signature: `sha256=${'0'.repeat(64)}` });
  expect(stranger.status).toBe(404);
  expect(await ConnectionState.count()).toBe(before);
});

test('accounts with activity and no member: counted per connection, the next step is to link them', async () => {
  const org = await freshOrganization();
  const git = await githubApp('Linked later', org);
  await t.runtime.writers.changes.run(async (c) => {
    await recordDelivery(c.transaction, { connectionId: git.id, organizationId: org }, 'push', new Date());
    const at = new Date();
    await noteUnmatched(c.transaction, { id: git.id, organizationId: org }, 'commit', [{ account: 'octo-one', at }, { account: 'octo-two', at }, { account: 'octo-two', at }]);
  });
  expect(sourceOf((await view(org)).sources, git.id)).toMatchObject({
    unlinked_accounts: 2,
    next_step: `Link people: 2 accounts with activity and no member; link each to its member in People to link (or npm run gitapps -- unlinked --git-app ${git.id}, then npm run gitapps -- link-users --git-app ${git.id} --csv <file>).`,
  });
  await UserGitApp.create({ user_id: DEMO.users.ada, git_app_id: git.id, username: 'octo-one', created_at: new Date() });
  expect(sourceOf((await view(org)).sources, git.id)).toMatchObject({ unlinked_accounts: 1, next_step: expect.stringContaining('Link people: 1 account with') });
});

test('quiet: a source silent for a day while another of its organization delivered; AI vendors and tokens have their own states', async () => {
  const org = await freshOrganization();
  const busy = await githubApp('Busy', org);
  const silent = await githubApp('Silent', org);
  const now = new Date('2026-11-20T12:00:00.000Z');
  const deliveredAt = async (id: string, at: Date) => t.runtime.writers.changes.run((c) => recordDelivery(c.transaction, { connectionId: id, organizationId: org }, 'push', at));
  await deliveredAt(silent.id, new Date(now.getTime() - 25 * 3_600_000));
  await deliveredAt(busy.id, new Date(now.getTime() - 3_600_000));

  let seen = await view(org, now);
  expect(sourceOf(seen.sources, silent.id)).toMatchObject({ state: 'receiving', quiet: true, next_step: expect.stringContaining('Nothing from GitHub for a day') });
  expect(sourceOf(seen.sources, busy.id)).toMatchObject({ state: 'receiving', quiet: false });
  // A day later neither delivered within the day: no peer to be quieter than.
  seen = await view(org, new Date(now.getTime() + 24 * 3_600_000));
  expect(seen.sources.map((s) => s.quiet)).toEqual([false, false]);
  expect(seen.counts).toEqual({ waiting: 0, receiving: 2, failing: 0, quiet: 0 });

  const copilot = await t.runtime.writers.apps.create(org, 'copilot', { vendor: { credential: `github_pat_${randomBytes(30).toString('hex')}`, account: { kind: 'organization', slug: 'acme-corp' } } });
  const scim = await createScimToken({ organizationId: org, name: 'Okta' });
  seen = await view(org, now);
  expect(sourceOf(seen.sources, copilot.app.id)).toMatchObject({ receives: 'pull', state: 'waiting', next_step: `Wait for the daily pull, or pull now with npm run import -- ai --app ${copilot.app.id}.` });
  expect(sourceOf(seen.sources, scim.id)).toMatchObject({ kind: 'scim_token', name: 'Okta', receives: 'token', state: 'waiting', next_step: expect.stringContaining(`${publicBase(t.config)}/scim/v2`) });

  await AiVendorSource.update({ pulled_at: now, failing: true, pull_result: 'GitHub refused the token (401): make a new one' }, { where: { app_id: copilot.app.id } });
  expect(sourceOf((await view(org, now)).sources, copilot.app.id)).toMatchObject({
    state: 'failing',
    last_refusal: { at: now.toISOString(), reason: 'GitHub refused the token (401): make a new one' },
    next_step: expect.stringContaining(`npm run apps -- set-credential --app ${copilot.app.id}`),
  });
  const used = await request(t.runtime.app).get('/scim/v2/Users').set('Authorization', `Bearer ${scim.token}`);
  expect(used.status).toBe(200);
  for (let i = 0; i < 40 && sourceOf((await view(org, now)).sources, scim.id).state === 'waiting'; i++) await new Promise((r) => setTimeout(r, 50));
  expect(sourceOf((await view(org, now)).sources, scim.id)).toMatchObject({ state: 'receiving', last_delivery: { event: 'request' } });
});

test('read in a fixed number of statements, however many sources', async () => {
  const org = await freshOrganization();
  const counted = async () => {
    const statements = jest.spyOn(t.runtime.sequelize, 'query');
    try {
      await view(org);
      return statements.mock.calls.length;
    } finally {
      statements.mockRestore();
    }
  };
  await githubApp('One', org);
  await t.runtime.writers.apps.create(org, 'jira', { name: 'Jira one' });
  const few = await counted();
  for (let i = 0; i < 6; i++) {
    await githubApp(`More ${i}`, org);
    await t.runtime.writers.apps.create(org, 'pagerduty', { name: `PagerDuty ${i}` });
  }
  expect(await counted()).toBe(few);
  // One read per table: git apps, apps, vendor sources, states, SCIM and OTLP tokens, credentials, history imports, the apps' boards, unlinked accounts.
  expect(few).toBe(10);
});

test('settings.setup: the admin’s view; refused to an API token, no session, a manager, a collaborator and another organization’s admin', async () => {
  const shown = data(await ada.query('settings.setup', acme));
  expect(shown).toMatchObject({ organization_id: DEMO.orgs.acme, checked_at: expect.any(String), counts: expect.any(Object) });
  expect(shown.sources.map((s: SetupSource) => s.id)).toEqual(expect.arrayContaining([DEMO.gitApps.acmeGithub]));
  expect(shown.sources).toEqual((await view(DEMO.orgs.acme, new Date(shown.checked_at))).sources);
  // The demo's Linear app has no secret yet: made here, or the one Linear made stored.
  expect(sourceOf(shown.sources, DEMO.apps.acmeLinear)).toMatchObject({ state: 'waiting', next_step: expect.stringContaining(`npm run apps -- set-secret --app ${DEMO.apps.acmeLinear}`) });

  const errorOf = (res: request.Response) => ({ status: res.status, code: res.body.error?.data?.code });
  expect(errorOf(await ada.query('settings.setup', acme, { Authorization: `Bearer ${await t.token()}` }))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  expect(errorOf(await request(t.runtime.app).get(`/trpc/settings.setup?input=${encodeURIComponent(JSON.stringify(acme))}`))).toMatchObject({ status: 401 });
  for (const user of [DEMO.users.grace, DEMO.users.linus, DEMO.users.margaret]) {
    const who = await signInWithLink(t.runtime.app, user, origin);
    expect({ user, ...errorOf(await who.query('settings.setup', acme)) }).toMatchObject({ user, status: 403, code: 'FORBIDDEN' });
  }
  expect(errorOf(await ada.query('settings.setup', { organization_id: 'org_nothing' }))).toMatchObject({ status: 404 });
  expect(errorOf(await ada.query('settings.setup', {}))).toMatchObject({ status: 400 });
  // A page of another origin may send the cookie-less request only; given the cookie, the answer is still not shared with it.
  const foreign = await ada.query('settings.setup', acme, { Origin: 'https://evil.example' });
  expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
});
