/**
 * npm run seed -- --scale tiny|demo|large [--seed N] [--end-day YYYY-MM-DD]
 *
 * Migrates the database named by DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH),
 * then fills it with the deterministic demo data. Seeds only into an empty database: if `users` already
 * has rows it refuses (exit 1). Bad arguments print the usage (exit 2).
 */
import { loadConfig } from '../src/config';
import { createSequelize, describeDatabase } from '../db/connection';
import { migrate } from '../db/migrator';
import { DEFAULT_DEMO_SEED, DEMO_SCALES, DemoScale, isDemoEndDay, isDemoScale, seedDemo } from '../db/demo/generator';
import { DEMO_END_DAY } from '../db/demo/fixtures/timeline';
import { day } from '../src/services/metrics/reading/window';

const USAGE = `Usage: npm run seed -- [--scale tiny|demo|large] [--seed N] [--end-day YYYY-MM-DD]

  --scale   amount of data (default: demo)
              tiny   fixtures plus a handful of generated records (tests)
              demo   ~2,000 users, 10 organizations, ~50k commits
              large  ~100,000 users, ~1,000,000 commits (benchmarks)
  --seed    non-negative integer seed of the generator (default: ${DEFAULT_DEMO_SEED})
  --end-day the UTC day the demo data ends on: its last records are from the day
            before, its first about 34 months earlier (default: today, UTC).
            ${DEMO_END_DAY} gives the dates the README and the tests name.
            The same scale, seed and end day give the same rows.

Target: DATABASE_URL (mysql://...) or, when unset, the embedded SQLite file (SQLITE_PATH).
The database is migrated first and must not contain any users yet.`;

class UsageError extends Error {}

interface Args {
  scale: DemoScale;
  seed: number;
  endDay: string;
}

export function parseArgs(argv: readonly string[], now = new Date()): Args | 'help' {
  const args: Args = { scale: 'demo', seed: DEFAULT_DEMO_SEED, endDay: day(now) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--scale': {
        const v = takeValue();
        if (!isDemoScale(v)) throw new UsageError(`--scale must be one of ${DEMO_SCALES.join(', ')} (got "${v}")`);
        args.scale = v;
        break;
      }
      case '--seed': {
        const v = takeValue();
        if (!/^\d{1,10}$/.test(v) || Number(v) > 0xffffffff) {
          throw new UsageError(`--seed must be an integer between 0 and 4294967295 (got "${v}")`);
        }
        args.seed = Number(v);
        break;
      }
      case '--end-day': {
        const v = takeValue();
        if (!isDemoEndDay(v)) {
          throw new UsageError(`--end-day must be a date, YYYY-MM-DD (got "${v}")`);
        }
        args.endDay = v;
        break;
      }
      default:
        throw new UsageError(`unknown argument "${arg}"`);
    }
  }
  return args;
}

async function main(): Promise<number> {
  let args: Args | 'help';
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`seed: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }
  if (args === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  let config;
  try {
    config = loadConfig();
  } catch (e) {
    process.stderr.write(`seed: ${(e as Error).message}\n`);
    return 1;
  }
  const target = describeDatabase({ url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH });
  const sequelize = createSequelize({ url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH });
  try {
    const applied = await migrate(sequelize);
    if (applied.length > 0) process.stdout.write(`migrated ${target}: ${applied.join(', ')}\n`);

    const [rows] = await sequelize.query('SELECT COUNT(*) AS n FROM users');
    const existing = Number((rows as Array<{ n: number | string }>)[0]?.n ?? 0);
    if (existing > 0) {
      process.stderr.write(
        `seed: refusing to seed ${target}: it already has ${existing} user(s). ` +
          'The demo data goes into an empty database; point DATABASE_URL or SQLITE_PATH at a new one ' +
          '(or drop this one) and run again.\n',
      );
      return 1;
    }

    process.stdout.write(`seeding ${target} (scale ${args.scale}, seed ${args.seed}, ending on ${args.endDay})\n`);
    const started = performance.now();
    const counts = await seedDemo(sequelize, {
      scale: args.scale,
      seed: args.seed,
      endDay: args.endDay,
      log: (msg) => process.stdout.write(`  ${msg}\n`),
    });
    const seconds = (performance.now() - started) / 1000;

    const width = Math.max(...Object.keys(counts).map((k) => k.length));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    process.stdout.write('\nrows per table:\n');
    for (const [table, n] of Object.entries(counts)) {
      process.stdout.write(`  ${table.padEnd(width)}  ${n.toLocaleString('en-US').padStart(10)}\n`);
    }
    process.stdout.write(`  ${'total'.padEnd(width)}  ${total.toLocaleString('en-US').padStart(10)}\n`);
    process.stdout.write(`\nseeded ${target} in ${seconds.toFixed(1)} s\n`);
    return 0;
  } finally {
    await sequelize.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      // Database errors (unreachable server, unknown database, ...) are explained by their message.
      const detail = e instanceof Error ? (e.name.startsWith('Sequelize') ? e.message : (e.stack ?? e.message)) : String(e);
      process.stderr.write(`seed: failed: ${detail}\n`);
      process.exitCode = 1;
    },
  );
}
