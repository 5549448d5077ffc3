import { QueryInterface } from 'sequelize';

/**
 * The "Developer wellbeing" dashboard's description no longer names meetings (issue 60): nothing records them (no
 * calendar is connected, docs/metrics.md#activity), so its interactions panel never shows any. The same text as
 * src/services/dashboards/catalog.ts declares, written as it was at this migration; down puts 0037's back.
 */
const KEY = 'wellbeing';
const BEFORE = 'Commit activity and the interactions (reviews, messages, assignments, meetings) people carry, period by period.';
const AFTER = 'Commit activity and the interactions (reviews, messages, assignments) people carry, period by period.';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.bulkUpdate('dashboard_catalog', { description: AFTER }, { key: KEY });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.bulkUpdate('dashboard_catalog', { description: BEFORE }, { key: KEY });
}
