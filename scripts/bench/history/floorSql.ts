/**
 * How the history rows' floor writes (floor.ts): plain mysql2 on one connection, a page's rows of each table in one
 * multi-row INSERT, nothing read back but what the next statement needs.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { newId } from '../../../src/persistence/changes/ids';

export type Row = Record<string, unknown>;

/** One multi-row INSERT of `rows` (all with the same columns); `ignore`: a row already there is left as it is. */
export async function insertRows(db: Connection, table: string, rows: Row[], how: { ignore?: boolean; update?: string } = {}): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const values = rows.map((row) => columns.map((c) => row[c]));
  const update = how.update ? ` ON DUPLICATE KEY UPDATE ${how.update}` : '';
  await db.query(`INSERT${how.ignore ? ' IGNORE' : ''} INTO ${table} (${columns.join(', ')}) VALUES ?${update}`, [values]);
}

export async function select(db: Connection, sql: string, args: unknown[]): Promise<RowDataPacket[]> {
  const [rows] = await db.query<RowDataPacket[]>(sql, args);
  return rows;
}

/** The outbox events a page's items announce, as the service writes them (one row each, the item as its data). */
export class Events {
  private readonly rows: Row[] = [];

  constructor(private readonly organizationId: string) {}

  emit(type: string, data: unknown): void {
    this.rows.push({ id: newId('evt'), organization_id: this.organizationId, type, data: JSON.stringify(data), created_at: new Date() });
  }

  write(db: Connection): Promise<void> {
    return insertRows(db, 'outbox_events', this.rows.splice(0));
  }
}

/** The interactions of a page and their day counts per organization (interaction_days), as recordInteractions keeps them. */
export async function insertInteractions(db: Connection, rows: { organization_id: string; type: string; source: string; user_id: string; counterpart_id: string; created_at: Date; source_ref: string }[]): Promise<number> {
  const fresh = rows.filter((r) => r.user_id !== r.counterpart_id);
  if (fresh.length === 0) return 0;
  await insertRows(db, 'interactions', fresh.map((r) => ({ id: newId('int'), ...r, team_id: null })), { ignore: true });
  const days = new Map<string, Row & { interactions: number }>();
  for (const r of fresh) {
    const day = r.created_at.toISOString().slice(0, 10);
    const key = `${day} ${r.type}`;
    const row = days.get(key) ?? { scope_id: r.organization_id, day, type: r.type, interactions: 0 };
    row.interactions += 1;
    days.set(key, row);
  }
  await insertRows(db, 'interaction_days', [...days.values()], { update: 'interactions = interactions + VALUES(interactions)' });
  return fresh.length;
}
