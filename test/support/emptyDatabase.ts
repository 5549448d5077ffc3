import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Sequelize } from 'sequelize';
import { createSequelize } from '../../db/connection';
import { SERVICES } from './harness';

/**
 * A database of nothing, on the backend this run uses, for a migration's own test: a new MariaDB database beside
 * DATABASE_URL's (dropped by `drop`), or a new SQLite file in a temporary folder.
 */
export async function emptyDatabase(label: string): Promise<{ sequelize: Sequelize; drop: () => Promise<void> }> {
  if (SERVICES.databaseUrl) {
    const server = new URL(SERVICES.databaseUrl);
    server.pathname = '/';
    const admin = new Sequelize(server.toString(), { dialect: 'mysql', logging: false });
    const name = `${new URL(SERVICES.databaseUrl).pathname.slice(1) || 'platform_test'}_${label}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE \`${name}\``);
    const url = new URL(SERVICES.databaseUrl);
    url.pathname = `/${name}`;
    const sequelize = createSequelize({ url: url.toString(), sqlitePath: '' });
    return {
      sequelize,
      drop: async () => {
        await sequelize.close();
        await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await admin.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `platform-${label}-`));
  const sequelize = createSequelize({ sqlitePath: path.join(dir, 'db.sqlite') });
  return {
    sequelize,
    drop: async () => {
      await sequelize.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
