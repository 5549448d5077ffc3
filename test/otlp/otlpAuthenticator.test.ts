import { startTestApp, TestApp, DEMO } from '../support/harness';
import { OtlpToken } from '../../db/models';
import { OtlpAuthenticator } from '../../src/auth/otlpAuthenticator';
import { generateToken, OTLP_TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';
import { DomainError } from '../../src/errors';

/** The credential of `/otlp` (docs/telemetry.md): OTLP tokens only, each refusal saying what to send instead. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const backgroundErrors: unknown[] = [];
afterEach(() => expect(backgroundErrors).toEqual([]));

const authenticator = (cacheTtlMs = 0) =>
  new OtlpAuthenticator({ cacheTtlMs, lastUsedIntervalMs: 60_000, onBackgroundError: (err) => backgroundErrors.push(err) });
const bearer = (token: string) => `Bearer ${token}`;

async function expectUnauthenticated(attempt: Promise<unknown>, message: string): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ kind: 'unauthenticated', message });
}

describe('OtlpAuthenticator', () => {
  test("an organization's token: its organization, no user; a bound token: its user too", async () => {
    const unbound = await createOtlpToken({ organizationId: DEMO.orgs.acme });
    const bound = await createOtlpToken({ organizationId: DEMO.orgs.globex, user: DEMO.emails.hedy });
    const auth = authenticator();
    expect(await auth.authenticate(bearer(unbound.token))).toEqual({ tokenId: unbound.id, organizationId: DEMO.orgs.acme, userId: null });
    expect(await auth.authenticate(`bearer   ${bound.token}  `)).toEqual({ tokenId: bound.id, organizationId: DEMO.orgs.globex, userId: DEMO.users.hedy });
  });

  test('records last_used_at', async () => {
    const created = await createOtlpToken({ organizationId: DEMO.orgs.acme });
    const now = new Date();
    await authenticator().authenticate(bearer(created.token), now);
    let row = await OtlpToken.findByPk(created.id);
    // The write is in the background: the request does not wait for it.
    for (const until = Date.now() + 5_000; !row?.last_used_at && Date.now() < until; row = await OtlpToken.findByPk(created.id)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(row!.last_used_at).toEqual(now);
  });

  const sendOtlpToken = 'Send the organization\'s OTLP token: OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer otlp_…" (npm run tokens -- create-otlp)';
  test.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['Bearer without a token', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['a token without a scheme', generateToken(OTLP_TOKEN_PREFIX)],
    ['two tokens', `Bearer ${generateToken(OTLP_TOKEN_PREFIX)} ${generateToken(OTLP_TOKEN_PREFIX)}`],
  ])('%s → how to send the OTLP token', async (_name, header) => {
    await expectUnauthenticated(authenticator().authenticate(header), sendOtlpToken);
  });

  test('an API token is refused, naming the token to use', async () => {
    await expectUnauthenticated(
      authenticator().authenticate(bearer(await t.token())),
      'API tokens are not accepted on /otlp; use an OTLP token (npm run tokens -- create-otlp)',
    );
  });

  test('a SCIM token is refused, naming the token to use', async () => {
    const { token } = await createScimToken({ organizationId: DEMO.orgs.acme });
    await expectUnauthenticated(
      authenticator().authenticate(bearer(token)),
      'SCIM tokens are not accepted on /otlp; use an OTLP token (npm run tokens -- create-otlp)',
    );
  });

  test('a malformed token: wrong shape or checksum', async () => {
    const token = generateToken(OTLP_TOKEN_PREFIX);
    const badChecksum = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    for (const malformed of ['otlp_nonsense', badChecksum, `${token}x`, 'plat_nonsense']) {
      await expectUnauthenticated(authenticator().authenticate(bearer(malformed)), 'Malformed OTLP token');
    }
  });

  test('a well-formed token nobody made is invalid', async () => {
    await expectUnauthenticated(authenticator().authenticate(bearer(generateToken(OTLP_TOKEN_PREFIX))), 'Invalid OTLP token');
  });

  test('a revoked token stops working once the cache entry is past its time', async () => {
    const created = await createOtlpToken({ organizationId: DEMO.orgs.acme });
    const cached = authenticator(5_000);
    const uncached = authenticator(0);
    const start = new Date();
    await cached.authenticate(bearer(created.token), start);
    await uncached.authenticate(bearer(created.token), start);

    await revokeToken(created.id);
    await expectUnauthenticated(uncached.authenticate(bearer(created.token), start), 'This OTLP token has been revoked');
    // Within the cache time the instance that saw it still takes it (docs/api.md#tokens-limits-and-headers: at most 5 s), never later.
    expect((await cached.authenticate(bearer(created.token), new Date(start.getTime() + 4_999))).tokenId).toBe(created.id);
    await expectUnauthenticated(cached.authenticate(bearer(created.token), new Date(start.getTime() + 5_000)), 'This OTLP token has been revoked');
  });

  const noLongerMember = 'The user of this OTLP token is no longer a member of its organization';

  test("a token whose user was suspended in the organization is refused, and works again on the user's return", async () => {
    const created = await createOtlpToken({ organizationId: DEMO.orgs.acme, user: DEMO.emails.margaret });
    const auth = authenticator();
    expect((await auth.authenticate(bearer(created.token))).userId).toBe(DEMO.users.margaret);

    const members = t.runtime.writers.members;
    const margaret = { email: DEMO.emails.margaret, name: 'Margaret Hamilton', role: 'collaborator' as const, externalId: null, title: null };
    await members.update(DEMO.orgs.acme, DEMO.users.margaret, { ...margaret, active: false });
    await expectUnauthenticated(auth.authenticate(bearer(created.token)), noLongerMember);
    await members.update(DEMO.orgs.acme, DEMO.users.margaret, { ...margaret, active: true });
    expect((await auth.authenticate(bearer(created.token))).userId).toBe(DEMO.users.margaret);
  });

  test('a token whose user was removed from the organization is refused', async () => {
    const created = await createOtlpToken({ organizationId: DEMO.orgs.acme, user: DEMO.users.barbara });
    const auth = authenticator();
    expect((await auth.authenticate(bearer(created.token))).userId).toBe(DEMO.users.barbara);
    await t.runtime.writers.members.remove(DEMO.orgs.acme, DEMO.users.barbara);
    await expectUnauthenticated(auth.authenticate(bearer(created.token)), noLongerMember);
  });

  test('a token whose user is deactivated everywhere is refused, as their API tokens are', async () => {
    const created = await createOtlpToken({ organizationId: DEMO.orgs.acme, user: DEMO.users.grace });
    const auth = authenticator();
    expect((await auth.authenticate(bearer(created.token))).userId).toBe(DEMO.users.grace);
    await t.runtime.sequelize.query(`UPDATE users SET is_active = false WHERE id = '${DEMO.users.grace}'`);
    await expectUnauthenticated(auth.authenticate(bearer(created.token)), noLongerMember);
    // One rule for creating and using a bound token: no new token for a deactivated user either.
    await expect(createOtlpToken({ organizationId: DEMO.orgs.acme, user: DEMO.users.grace })).rejects.toThrow(/is not an active member/);
    await t.runtime.sequelize.query(`UPDATE users SET is_active = true WHERE id = '${DEMO.users.grace}'`);
  });
});
