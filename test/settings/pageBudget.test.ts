import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink } from '../support/peers/settingsBrowser';
import { publicBase } from '../../src/config';

/**
 * A person's pages and their API tokens are limited apart (docs/api.md#rate-limits): a script that uses up the
 * user's budget leaves the settings page working, and a busy page leaves the script's budget whole.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '1000' });
});
afterAll(async () => t?.close());

test('the pages and the API tokens of one user each have their own budget', async () => {
  const page = await signInWithLink(t.runtime.app, DEMO.users.grace, new URL(publicBase(t.config)).origin);
  const token = await t.token({ user: DEMO.users.grace });
  for (let i = 0; i < 3; i++) expect((await t.get('/v1/users?per_page=1', token)).status).toBe(200);
  expect((await t.get('/v1/users?per_page=1', token)).status).toBe(429);

  // The sign-in read the session once already: two more calls fit, the third is over.
  const pageCall = () => page.query('settings.apiTokens.list');
  expect((await pageCall()).status).toBe(200);
  expect((await pageCall()).status).toBe(200);
  const over = await pageCall();
  expect(over.status).toBe(429);
  expect(over.headers['x-ratelimit-remaining']).toBe('0');

  // Neither spent the other's: another user's budget is untouched too.
  const other = await t.token({ user: DEMO.users.ada });
  expect((await t.get('/v1/users?per_page=1', other)).status).toBe(200);
  expect((await request(t.runtime.app).get('/trpc/settings.session').set('Cookie', page.cookie)).status).toBe(429);
});
