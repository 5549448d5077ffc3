import { loadConfig } from '../src/config';
import { createSequelize } from '../db/connection';
import { migrate } from '../db/migrator';

async function main(): Promise<void> {
  const config = loadConfig();
  const sequelize = createSequelize({ url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH });
  try {
    const applied = await migrate(sequelize);
    process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
  } finally {
    await sequelize.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
