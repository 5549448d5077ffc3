import request from 'supertest';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';
import { startOidcProvider, OidcProvider, TestAccount } from '../support/peers/oidcProvider';
import { sessionCookieOf } from '../support/peers/settingsBrowser';
import { appCli } from '../support/cli';
import { createLoginLink } from '../../src/auth/signIn';
import { Sessions } from '../../src/auth/sessions';
import { DatabaseAuthStore, RedisAuthStore } from '../../src/auth/sessionStore';

/**
 * Sign-in to the settings against a real OpenID provider (oidc-provider, in a child process), as a browser does it:
 * /auth/login → the provider's login and consent forms → /auth/callback → a session. Also one-time links printed by
 * the CLI, and the sessions' idle and absolute ends on the store this run uses (Redis when REDIS_URL is set).
 */

const PUBLIC_URL = 'http://127.0.0.1:39871';
const UNKNOWN = 'nobody@elsewhere.test';

const ACCOUNTS: TestAccount[] = [
  { sub: 'okta-ada', email: DEMO.emails.ada, email_verified: true, name: 'Ada' },
  { sub: 'okta-linus', email: DEMO.emails.linus, email_verified: true },
  { sub: 'okta-grace', email: DEMO.emails.grace, email_verified: false },
  { sub: 'okta-nobody', email: UNKNOWN, email_verified: true },
];

let idp: OidcProvider;
let t: TestApp;

/** A provider configured as given and a service signing in through it, for the tests of the enclosing describe. */
function withProvider(options: { conformIdTokenClaims: boolean; userinfo?: boolean; emailInIdToken?: boolean; accounts?: TestAccount[] }): void {
  beforeAll(async () => {
    idp = await startOidcProvider({ redirectUris: [`${PUBLIC_URL}/auth/callback`], accounts: options.accounts ?? ACCOUNTS, ...options });
    // The provider answers on loopback over plain http: the operator's allowance lets the service call it.
    t = await startTestApp({ PUBLIC_URL, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, WEBHOOK_ALLOW_PRIVATE: '1' });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });
}

const app = () => request(t.runtime.app);
const signInCookieOf = (res: request.Response) =>
  (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('platform_sign_in='))!.split(';')[0];

/** /auth/login as a browser follows it: the provider's authorization URL, and the cookie that pairs the callback with it. */
async function startSignIn(returnTo?: string) {
  const res = await app().get(`/auth/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
  expect(res.status).toBe(302);
  return { authorizationUrl: res.headers.location as string, cookie: signInCookieOf(res) };
}

/** The provider's redirect to our callback, requested as the browser would (same cookie jar). */
const callback = (url: string, cookie: string) => app().get(new URL(url).pathname + new URL(url).search).set('Cookie', cookie);

describe.each([
  ['the e-mail only from UserInfo (OpenID Connect Core §5.4, oidc-provider\'s default)', true],
  ['the e-mail in the ID token too (as Okta and Google send it)', false],
])('sign-in with OpenID Connect, %s', (_, conformIdTokenClaims) => {
  withProvider({ conformIdTokenClaims });

  test('code flow with PKCE, state and nonce: the user found by verified e-mail gets a session and lands where they asked', async () => {
    const { authorizationUrl, cookie } = await startSignIn('/settings/#webhooks');
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: idp.clientId,
      redirect_uri: `${PUBLIC_URL}/auth/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.any(String),
    });
    expect(cookie).toMatch(/^platform_sign_in=/);

    const back = await callback(await idp.signIn(authorizationUrl, DEMO.emails.ada), cookie);
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/settings/#webhooks');
    const session = sessionCookieOf(back)!;
    const me = await app().get('/trpc/settings.session').set('Cookie', session);
    expect(me.status).toBe(200);
    expect(me.body.result.data.user).toMatchObject({ id: DEMO.users.ada, email: DEMO.emails.ada });
  });

  test('an e-mail no user has is refused with a page that says so; no session', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const back = await callback(await idp.signIn(authorizationUrl, UNKNOWN), cookie);
    expect(back.status).toBe(403);
    expect(back.text).toContain(`No account uses the e-mail address ${UNKNOWN}`);
    expect(sessionCookieOf(back)).toBeUndefined();
  });

  test('an e-mail the provider has not verified signs no one in, even a known user’s', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const back = await callback(await idp.signIn(authorizationUrl, DEMO.emails.grace), cookie);
    expect(back.status).toBe(400);
    expect(back.text).toContain(`has not verified the e-mail address ${DEMO.emails.grace}`);
    expect(sessionCookieOf(back)).toBeUndefined();
  });

  test('a tampered state is refused', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const returned = new URL(await idp.signIn(authorizationUrl, DEMO.emails.ada));
    returned.searchParams.set('state', 'forged');
    const back = await callback(returned.href, cookie);
    expect(back.status).toBe(400);
    expect(back.text).toContain('Sign-in failed');
    expect(sessionCookieOf(back)).toBeUndefined();
  });

  test('a tampered nonce (the ID token answers another request) is refused', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const forged = new URL(authorizationUrl);
    forged.searchParams.set('nonce', 'forged-nonce');
    const back = await callback(await idp.signIn(forged.href, DEMO.emails.ada), cookie);
    expect(back.status).toBe(400);
    expect(back.text).toContain('Sign-in failed');
    expect(sessionCookieOf(back)).toBeUndefined();
  });

  test('a callback used twice, or in a browser that did not start the sign-in, is refused', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const returned = await idp.signIn(authorizationUrl, DEMO.emails.ada);
    expect((await callback(returned, cookie)).status).toBe(303);
    const again = await callback(returned, cookie);
    expect(again.status).toBe(400);
    expect(again.text).toContain('This sign-in has expired');
    const other = await startSignIn();
    const elsewhere = await app().get(new URL(await idp.signIn(other.authorizationUrl, DEMO.emails.ada)).pathname + '?code=x&state=y');
    expect(elsewhere.status).toBe(400);
  });

  test('a refusal by the provider (an unknown login) is shown as such', async () => {
    const { authorizationUrl, cookie } = await startSignIn();
    const back = await callback(await idp.signIn(authorizationUrl, 'not-an-account'), cookie);
    expect(back.status).toBe(400);
    expect(back.text).toContain('The identity provider refused the sign-in: access_denied');
  });

  test('return_to never leaves the service', async () => {
    for (const target of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      const { authorizationUrl, cookie } = await startSignIn(target);
      const back = await callback(await idp.signIn(authorizationUrl, DEMO.emails.ada), cookie);
      expect(back.headers.location).toBe('/settings/');
    }
  });

  test('logout, then a suspended member: each loses the session at once', async () => {
    const signedIn = async (email: string) => {
      const { authorizationUrl, cookie } = await startSignIn();
      return sessionCookieOf(await callback(await idp.signIn(authorizationUrl, email), cookie))!;
    };
    const ada = await signedIn(DEMO.emails.ada);
    const csrf = (await app().get('/trpc/settings.session').set('Cookie', ada)).body.result.data.csrf_token;
    expect((await app().post('/auth/logout').set({ Cookie: ada, Origin: PUBLIC_URL, 'X-CSRF-Token': csrf })).status).toBe(303);
    expect((await app().get('/trpc/settings.session').set('Cookie', ada)).status).toBe(401);

    const linus = await signedIn(DEMO.emails.linus);
    expect((await app().get('/trpc/settings.session').set('Cookie', linus)).status).toBe(200);
    const member = (await t.runtime.writers.members.find(DEMO.orgs.acme, DEMO.users.linus))!;
    await t.runtime.writers.members.update(DEMO.orgs.acme, DEMO.users.linus, {
      email: member.user.email, name: member.user.name, role: member.membership.role, externalId: null, title: null, active: false,
    });
    expect((await app().get('/trpc/settings.session').set('Cookie', linus)).status).toBe(401);
    // Suspended, signing in again is refused too.
    const { authorizationUrl, cookie } = await startSignIn();
    const refused = await callback(await idp.signIn(authorizationUrl, DEMO.emails.linus), cookie);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('is not an active member of any organization');
  });
});

describe('the e-mail nowhere, or from another subject', () => {
  describe('a provider without a UserInfo endpoint that keeps the e-mail out of the ID token', () => {
    withProvider({ conformIdTokenClaims: true, userinfo: false, emailInIdToken: false });

    test('is refused with a page that names what it sent, so that an administrator can fix its settings', async () => {
      const { authorizationUrl, cookie } = await startSignIn();
      const back = await callback(await idp.signIn(authorizationUrl, DEMO.emails.ada), cookie);
      expect(back.status).toBe(400);
      expect(back.text).toContain('The identity provider sent no e-mail address');
      expect(back.text).toContain('the ID token&#39;s claims were sub');
      expect(back.text).toContain('the provider has no UserInfo endpoint');
      expect(back.text).toContain('allow the &quot;email&quot; scope (and claim) for this application');
      expect(sessionCookieOf(back)).toBeUndefined();
    });
  });

  describe('a provider whose UserInfo names another subject than the ID token', () => {
    withProvider({ conformIdTokenClaims: true, accounts: [{ sub: 'okta-ada', userInfoSub: 'okta-linus', email: DEMO.emails.ada, email_verified: true }] });

    test('is refused: UserInfo must be about the person the ID token names (OpenID Connect Core §5.3.2)', async () => {
      const { authorizationUrl, cookie } = await startSignIn();
      const back = await callback(await idp.signIn(authorizationUrl, DEMO.emails.ada), cookie);
      expect(back.status).toBe(400);
      expect(back.text).toContain('UserInfo answer did not check out');
      expect(back.text).toContain('same subject as the ID token');
      expect(sessionCookieOf(back)).toBeUndefined();
    });
  });

  describe('a provider asked without the email scope', () => {
    withProvider({ conformIdTokenClaims: true });

    test('is refused with a page naming the scopes granted and the claims UserInfo sent', async () => {
      const { authorizationUrl, cookie } = await startSignIn();
      const withoutEmail = new URL(authorizationUrl);
      withoutEmail.searchParams.set('scope', 'openid profile');
      const back = await callback(await idp.signIn(withoutEmail.href, DEMO.emails.ada), cookie);
      expect(back.status).toBe(400);
      expect(back.text).toContain('The identity provider sent no e-mail address');
      expect(back.text).toContain('the granted scopes &quot;openid profile&quot;');
      expect(back.text).toContain('UserInfo&#39;s were sub, name');
      expect(sessionCookieOf(back)).toBeUndefined();
    });
  });
});

describe('sessions end by themselves', () => {
  withProvider({ conformIdTokenClaims: true });

  const store = () => (t.runtime.redis ? new RedisAuthStore(t.runtime.redis, `test:sessions:${Date.now()}`) : new DatabaseAuthStore());

  test(`idle for 12 hours or 7 days after sign-in, however busy (${SERVICES.redisUrl ? 'Redis' : 'database'} store)`, async () => {
    let now = new Date();
    const sessions = new Sessions(store(), { idleMs: 12 * 3_600_000, absoluteMs: 7 * 86_400_000, clock: () => now });
    const idle = await sessions.start(DEMO.users.ada);
    const busy = await sessions.start(DEMO.users.ada);
    const at = (hours: number) => (now = new Date(now.getTime() + hours * 3_600_000));

    at(11.9);
    expect(await sessions.resume(idle.id)).toBeDefined();
    at(11.9);
    expect(await sessions.resume(idle.id)).toBeDefined();
    at(12.1);
    expect(await sessions.resume(idle.id)).toBeUndefined();

    now = new Date(busy.session.createdAt);
    for (let hours = 0; hours < 7 * 24 - 6; hours += 6) {
      at(6);
      expect(await sessions.resume(busy.id)).toBeDefined();
    }
    at(7);
    expect(await sessions.resume(busy.id)).toBeUndefined();
  });

  test('a pending sign-in is taken once', async () => {
    const sessions = new Sessions(store(), { idleMs: 60_000, absoluteMs: 60_000 });
    const id = await sessions.beginSignIn({ state: 's', nonce: 'n', codeVerifier: 'v', returnTo: '/settings' });
    const [a, b] = await Promise.all([sessions.takeSignIn(id), sessions.takeSignIn(id)]);
    expect([a, b].filter(Boolean)).toEqual([{ state: 's', nonce: 'n', codeVerifier: 'v', returnTo: '/settings' }]);
  });
});

describe('one-time links', () => {
  withProvider({ conformIdTokenClaims: true });

  test('are refused where an identity provider is configured: everyone signs in through it', async () => {
    const { token } = await createLoginLink(DEMO.users.ada);
    const res = await app().post('/auth/link').set('Origin', PUBLIC_URL).type('form').send({ token });
    expect(res.status).toBe(403);
    expect(sessionCookieOf(res)).toBeUndefined();
    const cli = await appCli(t, 'tokens', { PUBLIC_URL, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, WEBHOOK_ALLOW_PRIVATE: '1' })('login-link', '--user', DEMO.emails.ada);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('signs in through OIDC_ISSUER');
  });
});
