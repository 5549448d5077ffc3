import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(180_000);

/**
 * What an operator connects with `npm run apps` is what `/v1` shows: the organization's apps with the category their
 * provider brings in (`GET /v1/organizations/{id}/apps`), and a member's account linked by hand among the member's
 * apps (`GET /v1/users/{id}/apps`, `/v1/users/{id}/apps/{app_id}`).
 */

let t: TestApp;
let apps: (...args: string[]) => Promise<CliRun>;
let margaret: string;
beforeAll(async () => {
  t = await startTestApp();
  apps = appCli(t, 'apps');
  margaret = await t.token({ user: DEMO.emails.margaret });
});
afterAll(async () => t.close());

async function json(...args: string[]) {
  const run = await apps(...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

test('apps made by the CLI are listed for their organization, each with its provider’s category, a disabled one as inactive', async () => {
  const categories: Record<string, string> = { jira: 'issues', linear: 'issues', slack: 'chat', pagerduty: 'incidents', deployments: 'deployments', cursor: 'ai' };
  const made: { id: string; provider: string }[] = [];
  const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'connected-apps-')), 'cursor-key');
  fs.writeFileSync(keyFile, 'key_0123456789abcdef0123456789abcdef');
  const vendorFlags = (provider: string) => (provider === 'cursor' ? ['--token-file', keyFile] : []);
  for (const provider of Object.keys(categories)) {
    made.push({ id: (await json('create', '--org', DEMO.orgs.globex, '--provider', provider, '--name', `${provider} of globex`, ...vendorFlags(provider))).id, provider });
  }
  const cursor = made.find((a) => a.provider === 'cursor')!;
  expect(await json('disable', cursor.id)).toMatchObject({ is_active: false });

  const res = await t.get(`/v1/organizations/${DEMO.orgs.globex}/apps?per_page=100`, margaret);
  expect(res.status).toBe(200);
  for (const { id, provider } of made) {
    expect(res.body.data).toContainEqual({
      id,
      organization_id: DEMO.orgs.globex,
      provider,
      category: categories[provider],
      name: `${provider} of globex`,
      is_active: provider !== 'cursor',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  }
  // Another organization's members do not see them.
  const acme = await t.get(`/v1/organizations/${DEMO.orgs.acme}/apps?per_page=100`, await t.token());
  expect(acme.status).toBe(200);
  expect(JSON.stringify(acme.body.data)).not.toMatch(new RegExp(made.map((a) => a.id).join('|')));
});

test('a member linked with link-user has the account among their apps, for themselves and their organization’s admin', async () => {
  const slack = await json('create', '--org', DEMO.orgs.globex, '--provider', 'slack', '--name', 'Slack (linked)');
  expect(await json('link-user', '--app', slack.id, '--user', DEMO.emails.margaret, '--external-id', 'U04MARGARET')).toMatchObject({ user_id: DEMO.users.margaret });

  const item = { id: slack.id, provider: 'slack', name: 'Slack (linked)', user_id: DEMO.users.margaret, external_user_id: 'U04MARGARET', created_at: expect.any(String) };
  const own = await t.get(`/v1/users/${DEMO.users.margaret}/apps?per_page=100`, margaret);
  expect(own.status).toBe(200);
  expect(own.body.data).toContainEqual(item);
  const one = await t.get(`/v1/users/${DEMO.users.margaret}/apps/${slack.id}`, margaret);
  expect(one.status).toBe(200);
  expect(one.body).toEqual({ status: 'success', data: item });
  // ada administers Acme, where margaret is a member too; the globex app is not hers to see.
  const byAcmeAdmin = await t.get(`/v1/users/${DEMO.users.margaret}/apps?per_page=100`, await t.token());
  expect(byAcmeAdmin.status).toBe(200);
  expect(JSON.stringify(byAcmeAdmin.body.data)).not.toContain(slack.id);
});
