import fs from 'node:fs';
import readline from 'node:readline';
import type { Pool } from 'mysql2/promise';

/** As many connections as the API's Sequelize pool (floor/answer.ts). */
export const POOL_SIZE = 20;

/** The prepared statements of each body: a file of one JSON array of SQL statements per line, one line per body. */
export async function loadStatementSets(file: string | undefined): Promise<string[][]> {
  if (!file) return [];
  const sets: string[][] = [];
  for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) if (line) sets.push(JSON.parse(line) as string[]);
  return sets;
}

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
