import type { QueryInterface } from 'sequelize';

/**
 * Empties rollup tables a backfill is about to fill from the stored data: run again after failing halfway (MySQL
 * keeps whatever a migration did before it failed, db/rerunnable.ts), the backfill then writes each row once
 * instead of tripping over the rows of the first run. The service does not run between the two: it migrates before
 * it serves.
 */
export async function emptied(qi: QueryInterface, ...tables: string[]): Promise<void> {
  for (const table of tables) await qi.sequelize.query(`DELETE FROM ${table}`);
}
