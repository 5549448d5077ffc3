import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import { DOMAIN_TABLES, DomainRows } from './domainTables';

/**
 * A scratch database on the test's MySQL/MariaDB server holding DevLake's domain tables, dropped by `drop`. Named
 * after the run's database (`<it>_devlake_<hex>`), so a run that dies before dropping it leaves it to CI's clean-up
 * of that name's databases. The session is in UTC, as DevLake's database and Grafana's session are: every time is
 * stored and compared as UTC.
 */
export interface DevlakeDatabase {
  name: string;
  /** The one value of a query's one row (the dashboard's stat panels answer so). */
  value(sql: string): Promise<unknown>;
  drop(): Promise<void>;
}

export async function createDevlakeDatabase(serverUrl: string, rows: DomainRows): Promise<DevlakeDatabase> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'platform_test'}_devlake_${randomBytes(4).toString('hex')}`;
  url.pathname = '/';
  const admin = new Sequelize(url.toString(), { dialect: 'mysql', logging: false });
  await admin.query(`CREATE DATABASE \`${name}\``);
  await admin.close();
  url.pathname = `/${name}`;
  const db = new Sequelize(url.toString(), { dialect: 'mysql', logging: false, timezone: '+00:00' });
  const drop = async () => {
    await db.close();
    const again = new Sequelize(new URL('/', url).toString(), { dialect: 'mysql', logging: false });
    await again.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await again.close();
  };
  try {
    for (const [table, columns] of Object.entries(DOMAIN_TABLES)) await db.query(`CREATE TABLE \`${table}\` (${columns})`);
    for (const [table, list] of Object.entries(rows)) {
      if (list.length) await db.getQueryInterface().bulkInsert(table, list as object[]);
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return {
    name,
    value: async (sql) => {
      const [row] = await db.query<Record<string, unknown>>(sql, { type: QueryTypes.SELECT });
      return row ? Object.values(row)[0] : undefined;
    },
    drop,
  };
}
