import { createHash } from 'node:crypto';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { expectError } from '../support/assertions';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createToken } from '../../src/auth/tokens/apiTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';
import { TokenInputError } from '../../src/auth/tokens/common';
import { generateToken, isWellFormedToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX, TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { ApiToken, User } from '../../db/models';
import { sleep } from '../support/common';

const expectUnauthorized = (res: request.Response, message: string) => expectError(res, 401, 'UNAUTHORIZED', message);

/**
 * Authentication (docs/api.md#authentication, docs/api.md#tokens-limits-and-headers): every way a token can be unusable is a 401 in the error envelope with a
 * message saying what is wrong, and it is checked before anything else. The limits are raised so that the
 * polling below never meets a 429 (rate limits have their own file).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000', RATE_LIMIT_PER_HOUR: '100000' });
});
afterAll(async () => t.close());

const MESSAGES = {
  missing: "Missing Authorization header; send 'Authorization: Bearer <API token>'",
  scheme: "Authorization header must use the Bearer scheme: 'Authorization: Bearer <API token>'",
  malformed: 'Malformed API token',
  invalid: 'Invalid API token',
  expired: 'API token has expired',
  revoked: 'API token has been revoked',
  deactivated: "API token's user is deactivated",
};

const PATH = `/v1/users/${DEMO.users.ada}`;

function withHeader(header: string | undefined, path = PATH) {
  const req = request(t.runtime.app).get(path);
  return header === undefined ? req : req.set('Authorization', header);
}

/** Requests until the response is no longer 200 or the deadline passes; returns the last response. */
async function pollUntilRejected(token: string, deadlineMs: number): Promise<request.Response> {
  const until = Date.now() + deadlineMs;
  let res = await t.get(PATH, token);
  while (res.status === 200 && Date.now() < until) {
    await sleep(150);
    res = await t.get(PATH, token);
  }
  return res;
}

/** A different character of the token alphabet at the last position (part of the checksum). */
function flipLast(token: string): string {
  const last = token[token.length - 1];
  return token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe('the Authorization header', () => {
  test('a valid bearer token is accepted (baseline for the cases below)', async () => {
    const token = await t.token();
    const res = await t.get(PATH, token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(DEMO.users.ada);
  });

  test('the scheme name is case-insensitive', async () => {
    const token = await t.token();
    expect((await withHeader(`bearer ${token}`)).status).toBe(200);
    expect((await withHeader(`BEARER ${token}`)).status).toBe(200);
  });

  test('missing header → 401', async () => {
    expectUnauthorized(await withHeader(undefined), MESSAGES.missing);
  });

  test.each([
    ['Basic credentials', () => `Basic ${Buffer.from('ada@demo.test:secret').toString('base64')}`],
    ['Token scheme', (token: string) => `Token ${token}`],
    ['bare token without scheme', (token: string) => token],
    ['three parts', (token: string) => `Bearer ${token} extra`],
  ])('wrong scheme or shape (%s) → 401', async (_name, header) => {
    const token = await t.token();
    expectUnauthorized(await withHeader(header(token)), MESSAGES.scheme);
  });

  test.each(['Bearer', 'bearer  '])('the scheme without a token (%j) → 401 saying the token is missing', async (header) => {
    expectUnauthorized(await withHeader(header), "Authorization header has no token after 'Bearer'");
  });
});

describe('token states', () => {
  test('malformed tokens (wrong prefix, wrong length, bad checksum) → 401 without a lookup', async () => {
    const token = await t.token();
    expect(isWellFormedToken(token)).toBe(true);
    const malformed = [
      `ghp_${token.slice(TOKEN_PREFIX.length)}`, // wrong prefix
      `PLAT_${token.slice(TOKEN_PREFIX.length)}`, // the prefix is case-sensitive
      `${token}A`, // too long
      token.slice(0, -1), // too short
      flipLast(token), // checksum mismatch
      `${token.slice(0, 10)}-${token.slice(11)}`, // character outside the alphabet
    ];
    for (const bad of malformed) {
      expect(isWellFormedToken(bad)).toBe(false);
      expectUnauthorized(await t.get(PATH, bad), MESSAGES.malformed);
    }
  });

  test('a SCIM or OTLP token on /v1 → 401 naming where it belongs', async () => {
    expectUnauthorized(await t.get(PATH, generateToken(SCIM_TOKEN_PREFIX)), 'This is a SCIM token, accepted on /scim/v2 only; send an API token (npm run tokens -- create)');
    expectUnauthorized(await t.get(PATH, generateToken(OTLP_TOKEN_PREFIX)), 'This is an OTLP token, accepted on /otlp only; send an API token (npm run tokens -- create)');
  });

  test('an unknown well-formed token → 401 Invalid API token', async () => {
    const unknown = generateToken();
    expect(isWellFormedToken(unknown)).toBe(true);
    expectUnauthorized(await t.get(PATH, unknown), MESSAGES.invalid);
  });

  test('a token whose expiry has passed before its first use → 401 expired', async () => {
    const created = await createToken({ user: DEMO.emails.ada, expiresAt: new Date(Date.now() + 3_600_000) });
    await ApiToken.update({ expires_at: new Date(Date.now() - 1_000) }, { where: { id: created.id } });
    expectUnauthorized(await t.get(PATH, created.token), MESSAGES.expired);
  });

  test('a token that expires while in use (and cached) → 401 expired right after its expiry', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const created = await createToken({ user: DEMO.emails.ada, expiresAt });
    expect(created.expires_at).toBe(expiresAt.toISOString());
    const before = await t.get(PATH, created.token);
    expect(before.status).toBe(200);
    // No polling needed: the cached entry keeps the expiry and is checked on every request.
    await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 50);
    expectUnauthorized(await t.get(PATH, created.token), MESSAGES.expired);
  });

  test('a revoked token that was never used → 401 at once', async () => {
    const created = await createToken({ user: DEMO.emails.ada });
    await revokeToken(created.id);
    expectUnauthorized(await t.get(PATH, created.token), MESSAGES.revoked);
  });

  test('revoking a token in use takes effect within the 5 s cache time', async () => {
    const created = await createToken({ user: DEMO.emails.ada });
    expect((await t.get(PATH, created.token)).status).toBe(200);
    await revokeToken(created.id);
    expectUnauthorized(await pollUntilRejected(created.token, 6_500), MESSAGES.revoked);
    const row = await ApiToken.findByPk(created.id);
    expect(row!.is_active).toBe(false);
    expect(row!.revoked_at).toBeInstanceOf(Date);
  });

  test("a deactivated user's token → 401 (fixture user usr_inactive)", async () => {
    expect((await User.findByPk(DEMO.users.inactive))!.is_active).toBe(false);
    const token = await t.token({ user: DEMO.users.inactive });
    expectUnauthorized(await t.get(`/v1/users/${DEMO.users.inactive}`, token), MESSAGES.deactivated);
  });

  test('deactivating a user stops their tokens within the 5 s cache time; reactivating restores them', async () => {
    const user = DEMO.users.barbara;
    const token = await t.token({ user });
    expect((await t.get(PATH, token)).status).toBe(200);
    await User.update({ is_active: false }, { where: { id: user } });
    try {
      expectUnauthorized(await pollUntilRejected(token, 6_500), MESSAGES.deactivated);
    } finally {
      await User.update({ is_active: true }, { where: { id: user } });
    }
    // A failed lookup is not cached: the token works again as soon as the user is active.
    expect((await t.get(PATH, token)).status).toBe(200);
  });
});

describe('token storage', () => {
  test('only the SHA-256 hash and a short preview are stored, never the token', async () => {
    const created = await createToken({ user: DEMO.emails.grace, name: 'storage check' });
    const rows = await t.runtime.sequelize.query<Record<string, unknown>>('SELECT * FROM api_tokens', {
      type: QueryTypes.SELECT,
    });
    expect(rows.length).toBeGreaterThan(0);
    const randomPart = created.token.slice(TOKEN_PREFIX.length);
    for (const row of rows) {
      for (const value of Object.values(row)) {
        const text = value instanceof Date ? value.toISOString() : String(value);
        expect(text).not.toContain(created.token);
        expect(text).not.toContain(randomPart.slice(4, 34));
      }
    }
    const row = rows.find((r) => r.id === created.id)!;
    expect(row).toBeDefined();
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.user_id).toBe(DEMO.users.grace);
    expect(String(row.preview).length).toBeLessThan(20);
    expect(created.token.startsWith(String(row.preview).slice(0, 9))).toBe(true);
  });

  test('last_used_at is set by the first use and not rewritten by an immediate second use', async () => {
    const created = await createToken({ user: DEMO.emails.linus });
    expect((await ApiToken.findByPk(created.id))!.last_used_at).toBeNull();

    const started = Date.now();
    expect((await t.get(PATH, created.token)).status).toBe(200);
    // The write happens in the background; wait for it with a deadline.
    let lastUsed: Date | null = null;
    for (const until = Date.now() + 5_000; !lastUsed && Date.now() < until; ) {
      lastUsed = (await ApiToken.findByPk(created.id))!.last_used_at;
      if (!lastUsed) await sleep(50);
    }
    expect(lastUsed).toBeInstanceOf(Date);
    expect(lastUsed!.getTime()).toBeGreaterThanOrEqual(started - 1_000);
    expect(lastUsed!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);

    await sleep(20);
    expect((await t.get(PATH, created.token)).status).toBe(200);
    await sleep(300);
    expect((await ApiToken.findByPk(created.id))!.last_used_at!.getTime()).toBe(lastUsed!.getTime());
  });
});

describe('token creation rules', () => {
  test('a scope can only narrow: an organization the user is not in is rejected', async () => {
    const before = await ApiToken.count();
    await expect(createToken({ user: DEMO.emails.ada, organizationIds: [DEMO.orgs.globex] })).rejects.toThrow(TokenInputError);
    await expect(createToken({ user: DEMO.emails.ada, organizationIds: [DEMO.orgs.globex] })).rejects.toThrow(
      `User ${DEMO.users.ada} is not a member of organization '${DEMO.orgs.globex}'`,
    );
    await expect(createToken({ user: DEMO.emails.ada, teamIds: [DEMO.teams.globexCore] })).rejects.toThrow(TokenInputError);
    await expect(createToken({ user: DEMO.emails.ada, teamIds: ['team_does_not_exist'] })).rejects.toThrow(TokenInputError);
    expect(await ApiToken.count()).toBe(before);
  });

  test('unknown users and past expiries are rejected', async () => {
    await expect(createToken({ user: 'nobody@demo.test' })).rejects.toThrow(TokenInputError);
    await expect(createToken({ user: 'usr_nobody' })).rejects.toThrow(TokenInputError);
    await expect(createToken({ user: DEMO.emails.ada, expiresAt: new Date(Date.now() - 1) })).rejects.toThrow(
      'The expiry must be in the future',
    );
  });

  test("a scoped token sees only its scope, within the user's memberships", async () => {
    // margaret belongs to Acme and Globex; a token scoped to Globex cannot reach Acme.
    const token = await t.token({ user: DEMO.users.margaret, organizationIds: [DEMO.orgs.globex] });
    const list = await t.get('/v1/organizations', token);
    expect(list.status).toBe(200);
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([DEMO.orgs.globex]);
    const acme = await t.get(`/v1/organizations/${DEMO.orgs.acme}`, token);
    expect(acme.status).toBe(403);
    expect(acme.body.error.code).toBe('FORBIDDEN');
  });
});

describe('check order: authentication comes first', () => {
  test.each([
    ['an invalid parameter', '/v1/users?per_page=101'],
    ['an unknown parameter', '/v1/users?bogus=1'],
    ['a nonexistent user', '/v1/users/usr_nobody'],
    ['a forbidden organization', `/v1/organizations/${DEMO.orgs.globex}`],
    ['an unknown route', '/v1/no-such-route'],
  ])('no token and %s → 401, not 400/403/404', async (_name, path) => {
    expectUnauthorized(await withHeader(undefined, path), MESSAGES.missing);
    expectUnauthorized(await withHeader(`Bearer ${generateToken()}`, path), MESSAGES.invalid);
  });

  test('the same invalid parameter with a valid token is the 400 (contrast)', async () => {
    const res = await t.get('/v1/users?per_page=101', await t.token());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('/trpc rejects a missing or bad token with UNAUTHORIZED before validating input', async () => {
    const path = `/trpc/users.get?input=${encodeURIComponent(JSON.stringify({ user_id: 42 }))}`;
    for (const header of [undefined, `Bearer ${flipLast(await t.token())}`]) {
      const res = await withHeader(header, path);
      expect(res.status).toBe(401);
      expect(res.body.error.data.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toBe(header ? MESSAGES.malformed : MESSAGES.missing);
    }
  });

  test('the unauthenticated endpoints stay open', async () => {
    expect((await request(t.runtime.app).get('/healthz')).status).toBe(200);
    expect((await request(t.runtime.app).get('/v1/openapi.json')).status).toBe(200);
  });
});
