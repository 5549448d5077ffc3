/**
 * The tracker-ingest row (scripts/bench/apps/ingest.ts): Jira Cloud's webhook deliveries (bodies.ts), half creating an
 * issue and half moving one created earlier, and the rows the service writes for each (rows.ts).
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { AppIngestSource } from '../apps/ingest';
import { jiraDeliveries } from './bodies';
import { jiraRowSet, KnownTasks } from './rows';

export const jiraIngest: AppIngestSource = {
  provider: 'jira',
  rowPath: '/ingest/jira/{app_id}',
  itemName: 'delivery',

  deliveries(app, secret, count, lag, startMs) {
    const bodies = jiraDeliveries(count, secret, { lag, startMs });
    const known: KnownTasks = new Map();
    const deliveries = bodies.map((d) => ({ body: d.body, headers: d.headers, ...jiraRowSet(app, d.id, d.body, new Date(), known) }));
    const [first] = deliveries;
    const created = bodies.filter((d) => d.kind === 'created').length;
    return {
      deliveries,
      first: { deliveries: 1, tasks: first.created ? 1 : 0, statusChanges: first.statusChanges },
      summary: `${created} issues created, ${count - created} status changes`,
    };
  },

  async stored(db, appId) {
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT (SELECT COUNT(*) FROM ingest_deliveries WHERE app_id = ?) AS deliveries, (SELECT COUNT(*) FROM tasks WHERE app_id = ?) AS tasks,
              (SELECT COUNT(*) FROM task_status_changes c JOIN tasks t ON t.id = c.task_id WHERE t.app_id = ?) AS changes`,
      [appId, appId, appId],
    );
    return { deliveries: Number(rows[0].deliveries), tasks: Number(rows[0].tasks), statusChanges: Number(rows[0].changes) };
  },

  async removeRows(db: Connection, appId: string) {
    await db.query('DELETE c FROM task_status_changes c JOIN tasks t ON t.id = c.task_id WHERE t.app_id = ?', [appId]);
    for (const table of ['tasks', 'ingest_deliveries', 'removed_tasks', 'user_apps']) await db.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
  },

  note:
    "Jira Cloud's webhook deliveries, half creating an issue and half moving an issue created earlier from To Do to In Progress, each signed with the app's secret; " +
    'the ingest floor writes the delivery, the task and its status change with mysql2; its stack floor writes the same behind express.raw, the HMAC check, JSON.parse and a zod check of the outline.',
};
