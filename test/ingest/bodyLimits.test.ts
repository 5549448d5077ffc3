import { gzipSync } from 'node:zlib';
import { sign } from '@octokit/webhooks-methods';
import { Deployment, Incident } from '../../db/models';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { unique } from '../support/common';
import { startUpload, Upload } from '../support/uploads';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { payload as opsgeniePayload } from '../support/peers/opsgenie/deliveries';
import { deliverToSlack, payload as slackPayload } from '../support/peers/slack/deliveries';
import { BITBUCKET_PAYLOADS, deliverToBitbucket } from '../support/peers/bitbucket/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * What a delivery's body may cost before its sender is known (docs/ingest.md#bounded), on a listening server so that
 * slow and chunked uploads are real: a secret sent in a header (Opsgenie, the deployments API, GitLab) is checked
 * before a byte of the body is read, and a refusal arrives while the upload is still going, the connection closed
 * under the rest; every provider's body is held to that provider's own limit, named in the 413.
 */
const MB = 1024 * 1024;
const PIECE = 64 * 1024;

let t: TestApp;
let origin: string;
beforeAll(async () => {
  // The default INGEST_BODY_LIMIT_KB (25 MB, GitHub's cap): the providers' own limits are what binds.
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  origin = await t.listen();
});
afterAll(async () => t.close());

/** A 25 MB body: Opsgenie's own alert (test/support/peers/opsgenie/alertCreated.json) with a 25 MB description. */
const hugeAlert = () => {
  const alert = opsgeniePayload('alertCreated.json');
  return JSON.stringify({ ...alert, alert: { ...alert.alert, description: 'x'.repeat(25 * MB) } });
};

/** Writes the first piece of the body, then waits for the answer without sending the rest. */
async function answeredAfterFirstPiece(upload: Upload, body: string) {
  await upload.write(body.slice(0, PIECE));
  return upload.answer;
}

/** Refused with the body unfinished: the ingest's error envelope, and the connection closed under the rest of the body. */
async function refusedMidUpload(upload: Upload, answer: Awaited<Upload['answer']>, status: number, code: string, message: RegExp | string) {
  expect([answer.status, answer.body.status, answer.body.error.code]).toEqual([status, 'error', code]);
  expect(answer.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  expect(upload.ended).toBe(false);
  expect(answer.headers.connection).toBe('close');
  // The server closes the connection: the rest of the 25 MB is never read (the test would wait here otherwise).
  await upload.closed;
}

describe('a secret sent in a header is checked before a byte of the body is read', () => {
  test('Opsgenie: no Authorization, a wrong token, an unknown app and a disabled app are refused while the upload goes on', async () => {
    const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'opsgenie', { name: `Opsgenie ${unique()}` }));
    const body = hugeAlert();
    const json = { 'Content-Type': 'application/json' };
    const cases: [string, string, Record<string, string>, number, string, RegExp][] = [
      ['no Authorization', app.id, json, 401, 'UNAUTHORIZED', /^Missing Authorization/],
      ['a wrong token', app.id, { ...json, Authorization: 'Bearer not-the-secret' }, 401, 'UNAUTHORIZED', /does not carry the app's secret/],
      ['an unknown app', 'app_nobody', { ...json, Authorization: `Bearer ${secret}` }, 404, 'NOT_FOUND', /^App not found/],
    ];
    for (const [, appId, headers, status, code, message] of cases) {
      const upload = startUpload(origin, `/ingest/opsgenie/${appId}`, headers);
      await refusedMidUpload(upload, await answeredAfterFirstPiece(upload, body), status, code, message);
    }
    await t.runtime.writers.apps.setActive(app.id, false);
    const disabled = startUpload(origin, `/ingest/opsgenie/${app.id}`, { ...json, Authorization: `Bearer ${secret}` });
    await refusedMidUpload(disabled, await answeredAfterFirstPiece(disabled, body), 403, 'FORBIDDEN', /is disabled/);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
  });

  test('the deployments API: a call without its token is refused before its body is read', async () => {
    const { app } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'deployments', { name: `CI ${unique()}` }));
    const body = JSON.stringify({ id: `deploy-${unique()}`, repository: 'acme/web', environment: 'production', status: 'success', notes: 'x'.repeat(25 * MB) });
    for (const authorization of [undefined, 'Bearer not-the-secret']) {
      const headers = { 'Content-Type': 'application/json', ...(authorization ? { Authorization: authorization } : {}) };
      const upload = startUpload(origin, `/ingest/deployments/${app.id}/deployments`, headers);
      await refusedMidUpload(upload, await answeredAfterFirstPiece(upload, body), 401, 'UNAUTHORIZED', /Authorization/);
    }
    expect(await Deployment.count({ where: { app_id: app.id } })).toBe(0);
  });

  test("GitLab: a delivery without the git app's X-Gitlab-Token is refused before its body is read", async () => {
    const { gitApp } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', `GitLab ${unique()}`);
    const body = JSON.stringify({ object_kind: 'push', commits: [], padding: 'x'.repeat(25 * MB) });
    const headers = { 'Content-Type': 'application/json', 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Event-UUID': unique(), 'X-Gitlab-Token': 'not-the-secret' };
    const upload = startUpload(origin, `/ingest/gitlab/${gitApp.id}`, headers);
    await refusedMidUpload(upload, await answeredAfterFirstPiece(upload, body), 401, 'UNAUTHORIZED', "X-Gitlab-Token does not match the git app's webhook secret");
  });

  test('with its token, a body declared larger than its provider takes is 413 naming the limit, before a byte of it is read', async () => {
    const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'opsgenie', { name: `Opsgenie ${unique()}` }));
    const body = hugeAlert();
    const upload = startUpload(origin, `/ingest/opsgenie/${app.id}`, { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` }, { contentLength: Buffer.byteLength(body) });
    const answer = await answeredAfterFirstPiece(upload, body);
    await refusedMidUpload(upload, answer, 413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1048576 bytes (1 MB), the limit of /ingest/opsgenie deliveries');
  });
});

describe("each provider's own body limit", () => {
  test('Slack: a 2 MB body is 413 with the limit named; sent chunked, it is refused once past the limit, before its end', async () => {
    const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name: `Slack ${unique()}` }));
    // Slack's own message event (test/support/peers/slack/appMention.json) with 2 MB of text.
    const message = slackPayload('appMention.json');
    const big = copy(message);
    big.event.text = 'x'.repeat(2 * MB);
    const answer = await deliverToSlack(t, app.id, secret, { body: big });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 1048576 bytes (1 MB), the limit of /ingest/slack deliveries' });

    const body = JSON.stringify(big);
    const upload = startUpload(origin, `/ingest/slack/${app.id}`, { 'Content-Type': 'application/json', 'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)), 'X-Slack-Signature': 'v0=00' });
    // 16 pieces are exactly the limit; the 17th passes it.
    for (let sent = 0; sent <= MB; sent += PIECE) await upload.write(body.slice(sent, sent + PIECE));
    await refusedMidUpload(upload, await upload.answer, 413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1048576 bytes (1 MB), the limit of /ingest/slack deliveries');
  });

  test('GitHub: a 2 MB push is taken (GitHub sends up to 25 MB)', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${unique()}`);
    // GitHub's own push example with a commit that added and modified 5,000 deeply nested files each, the most a push lists per kind.
    const push = copy(githubExamples('push').find((p) => p.commits?.length > 0)!);
    const paths = Array.from({ length: 5_000 }, (_, i) => `services/checkout/${'generated/'.repeat(30)}CheckoutRequestLineItem${i}.java`);
    push.commits[0].added = paths;
    push.commits[0].modified = paths;
    const body = JSON.stringify(push);
    expect(Buffer.byteLength(body)).toBeGreaterThan(2 * MB);
    const answer = await deliverToGithub(t, gitApp.id, secret, { event: 'push', payload: push, body });
    expect([answer.status, answer.body.data?.result]).toEqual([200, 'applied']);
  });

  test('Bitbucket: over its documented 256 KB, 413 with the limit named', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'bitbucket', `Bitbucket ${unique()}`);
    const push = copy(BITBUCKET_PAYLOADS['repo:push']);
    push.push.changes[0].commits[0].message = 'x'.repeat(300 * 1024);
    const answer = await deliverToBitbucket(t, gitApp.id, secret, { event: 'repo:push', payload: push });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 262144 bytes (256 KB), the limit of /ingest/bitbucket deliveries' });
  });

  test('a compressed body is held to the limit as it inflates: a gzip bomb stops there; one within it is taken; bad gzip is 400', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${unique()}`);
    const post = async (path: string, body: Buffer, headers: Record<string, string>) => {
      const upload = startUpload(origin, path, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', ...headers }, { contentLength: body.length });
      await upload.write(body);
      upload.end();
      return upload.answer;
    };
    const push = JSON.stringify(githubExamples('push')[0]);
    const github = { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': unique(), 'X-Hub-Signature-256': await sign(secret, push) };
    const taken = await post(`/ingest/github/${gitApp.id}`, gzipSync(push), github);
    expect([taken.status, taken.body.data?.result]).toEqual([200, 'applied']);

    const { app } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name: `Slack ${unique()}` }));
    // 30 MB of JSON in about 30 KB.
    const bomb = gzipSync(JSON.stringify({ ...slackPayload('appMention.json'), padding: ' '.repeat(30 * MB) }));
    expect(bomb.length).toBeLessThan(MB);
    const slack = { 'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)), 'X-Slack-Signature': 'v0=00' };
    const refused = await post(`/ingest/slack/${app.id}`, bomb, slack);
    expect([refused.status, refused.body.error?.message]).toEqual([413, 'The body is larger than 1048576 bytes (1 MB), the limit of /ingest/slack deliveries']);
    const garbled = await post(`/ingest/slack/${app.id}`, Buffer.from('not gzip at all'), slack);
    expect([garbled.status, garbled.body.error?.message]).toEqual([400, 'The body is not valid gzip/deflate data, as its Content-Encoding says']);
  });
});
