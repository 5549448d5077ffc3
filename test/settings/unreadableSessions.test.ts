import type { AuthRecordKind } from '../../db/models';
import type { AuthStore, StoredRecord } from '../../src/auth/sessionStore';
import { Sessions } from '../../src/auth/sessions';

/**
 * A session or sign-in record this version cannot read (written by another version, or damaged) is no session: its
 * holder is asked to sign in again; the request never fails with a 500.
 */

/** A store holding one record of each kind, whatever its data. */
function storeHolding(data: string): AuthStore {
  const now = Date.now();
  const record: StoredRecord = { userId: 'usr_1', data, createdAt: new Date(now), expiresAt: new Date(now + 60_000) };
  const found = async (_kind: AuthRecordKind) => record;
  return { put: async () => {}, get: found, take: found, delete: async () => {}, deleteForUser: async () => 0, prune: async () => {} };
}

const options = { idleMs: 60_000, absoluteMs: 3_600_000 };

test.each([
  ['not JSON', '{"csrfToken": '],
  ['JSON of another shape', JSON.stringify({ csrf: 'x', ends: 1 })],
  ['null', 'null'],
])('a record that is %s resumes no session and finishes no sign-in', async (_what, data) => {
  const sessions = new Sessions(storeHolding(data), options);
  await expect(sessions.resume('any id')).resolves.toBeUndefined();
  await expect(sessions.takeSignIn('any id')).resolves.toBeUndefined();
});

test('a readable record still resumes its session', async () => {
  const now = Date.now();
  const sessions = new Sessions(storeHolding(JSON.stringify({ csrfToken: 'csrf', endsAt: now + 60_000, seenAt: now })), options);
  await expect(sessions.resume('any id')).resolves.toMatchObject({ userId: 'usr_1', csrfToken: 'csrf' });
});
