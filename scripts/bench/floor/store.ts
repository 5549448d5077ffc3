import type { Pool } from 'mysql2/promise';

const ATTEMPTS = 5;

/**
 * The ingest floor's whole write: `statements` in one transaction, a deadlock victim run again after a short random
 * wait, as the service's changes are.
 */
export async function storeInOneTransaction(pool: Pool, statements: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const conn = await pool.getConnection();
    try {
      await conn.query('START TRANSACTION');
      for (const sql of statements) await conn.query(sql);
      await conn.query('COMMIT');
      return;
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => undefined);
      if ((err as { errno?: number }).errno !== 1213 || attempt >= ATTEMPTS) throw err;
    } finally {
      conn.release();
    }
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
  }
}
