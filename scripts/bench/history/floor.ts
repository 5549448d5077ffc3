/**
 * The floor of a history row, a process of its own (`node dist/scripts/bench/history/floor.js`) as the importer is:
 * the same connection's history read from the same fake by the same importer (src/integrations/<provider>/history*.ts:
 * the same requests, the same translation, a page at a time, joined into the runner's batches: historyBatches.ts), and
 * each batch's rows written with plain mysql2 on one connection, one transaction a batch, a multi-row INSERT per table
 * (floorGit.ts, floorApps.ts). What it leaves out of the history runner is the runner's own bookkeeping (cursors,
 * leases, data versions), the writers' item-by-item reads and writes through Sequelize, and the rollups they keep
 * beside the rows.
 *
 * Environment: DATABASE_URL, HISTORY_PROVIDER, HISTORY_CONNECTION (the git app's or app's id), HISTORY_BASE_URL,
 * HISTORY_TOKEN, HISTORY_SINCE and HISTORY_UNTIL (ISO 8601). Prints {"read","pages","writing_seconds"} on stdout when
 * done: the provider's items read, the batches written, and the time spent writing them (the rest is reading).
 */
import { createConnection } from 'mysql2/promise';
import { loadConfig } from '../../../src/config';
import { providerCatalog } from '../../../src/integrations/catalog';
import { slackAccountPages } from '../../../src/integrations/slack/importer';
import { outboundPolicy } from '../../../src/outbound/outboundFetch';
import { defaultHttp } from '../../../src/outbound/providerHttp';
import { batchedPages } from '../../../src/services/history/historyBatches';
import type { HistoryReading } from '../../../src/services/history/historySource';
import { AppFloor } from './floorApps';
import { GitFloor } from './floorGit';
import { select } from './floorSql';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`the history floor needs ${name}`);
  return value;
}

async function main(): Promise<void> {
  const provider = required('HISTORY_PROVIDER');
  const connectionId = required('HISTORY_CONNECTION');
  const token = required('HISTORY_TOKEN');
  const baseUrl = required('HISTORY_BASE_URL');
  const window = { since: new Date(required('HISTORY_SINCE')), until: new Date(required('HISTORY_UNTIL')) };
  const source = providerCatalog().find(provider)?.history;
  if (!source) throw new Error(`${provider} has no history importer`);
  // Stored in UTC, as the service's Sequelize writes.
  const db = await createConnection({ uri: required('DATABASE_URL'), timezone: 'Z' });
  // The fake answers on loopback over plain http: the operator's allowance, as the import runs with it.
  const outbound = outboundPolicy(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' }));
  const [gitApp] = await select(db, 'SELECT id, organization_id, provider FROM git_apps WHERE id = ?', [connectionId]);
  const [app] = gitApp ? [] : await select(db, 'SELECT id, organization_id, provider FROM apps WHERE id = ?', [connectionId]);
  if (!gitApp && !app) throw new Error(`no git app or app ${connectionId}`);
  const reading: HistoryReading = { credential: { kind: 'token', token }, baseUrl, http: defaultHttp(outbound), connection: { id: connectionId, organizationId: (gitApp ?? app).organization_id as string } };
  let git: GitFloor | undefined;
  let apps: AppFloor | undefined;
  if (gitApp) {
    const logins = await select(db, 'SELECT user_id, username FROM user_git_apps WHERE git_app_id = ?', [connectionId]);
    git = new GitFloor(db, { id: connectionId, organization_id: gitApp.organization_id as string, provider }, new Map(logins.map((l) => [String(l.username).toLowerCase(), l.user_id as string])));
  } else {
    const linked = await select(db, 'SELECT user_id, external_user_id FROM user_apps WHERE app_id = ?', [connectionId]);
    apps = new AppFloor(db, { id: connectionId, organization_id: app.organization_id as string, provider }, new Map(linked.map((l) => [l.external_user_id as string, l.user_id as string])));
    if (provider === 'slack') {
      const members = await select(db, "SELECT user_id, user_email FROM organization_memberships WHERE organization_id = ? AND status = 'active'", [app.organization_id]);
      const byEmail = new Map(members.map((m) => [String(m.user_email).toLowerCase(), m.user_id as string]));
      for await (const page of slackAccountPages({ token, baseUrl, outbound })) await apps.link(page.accounts, byEmail);
    }
  }
  let read = 0;
  let pages = 0;
  // The time spent writing, apart from reading: what the floor says the rows cost the database.
  let writing = 0n;
  for (const scope of await source.scopes(reading)) {
    for (const kind of source.kinds) {
      for await (const page of batchedPages(source.pages(reading, scope, kind, window, null))) {
        const started = process.hrtime.bigint();
        if (git) await git.page(page.activities ?? [], page.tasks ?? []);
        else await apps!.page(page.operations ?? [], page.messages ?? []);
        writing += process.hrtime.bigint() - started;
        read += page.read;
        pages += 1;
      }
    }
  }
  await db.end();
  process.stdout.write(`${JSON.stringify({ read, pages, writing_seconds: Number(writing) / 1e9 })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`history floor: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
