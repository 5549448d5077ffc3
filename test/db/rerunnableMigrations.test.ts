import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { QueryInterface, Sequelize } from 'sequelize';
import { createSequelize } from '../../db/connection';
import { createMigrator } from '../../db/migrator';
import { rerunnable } from '../../db/rerunnable';
import { SERVICES } from '../support/harness';

/**
 * docs/operating.md: a migration that fails halfway can be run again. MySQL commits each DDL statement on its own, so
 * the steps before the failure stay; run again, the migration must finish and leave the schema a clean run
 * leaves. Every migration is failed on purpose once, in its middle, between two of its steps (schema changes and
 * statements alike), then run again; at the end the schema is compared with a database migrated without a fault.
 */

class FailedOnPurpose extends Error {}

/** What counts as a step: the schema calls a migration makes, and every statement it sends itself. */
const STEPS = new Set(['createTable', 'dropTable', 'renameTable', 'addColumn', 'removeColumn', 'changeColumn', 'addIndex', 'removeIndex']);

/** The re-runnable QueryInterface, counting steps, and failing before step `failBefore` when given. */
function counted(counter: { steps: number }, failBefore?: number) {
  return (qi: QueryInterface): QueryInterface => {
    const step = () => {
      counter.steps += 1;
      if (counter.steps === failBefore) throw new FailedOnPurpose(`failed on purpose before step ${failBefore}`);
    };
    const inner = rerunnable(qi);
    const sequelize = new Proxy(qi.sequelize, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (property === 'query' && typeof value === 'function') {
          return (...args: unknown[]) => {
            step();
            return value.apply(target, args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return new Proxy(inner, {
      get(target, property) {
        if (property === 'sequelize') return sequelize;
        const value: unknown = Reflect.get(target, property);
        if (typeof property === 'string' && STEPS.has(property) && typeof value === 'function') {
          return async (...args: unknown[]) => {
            step();
            return value(...args);
          };
        }
        return value;
      },
    });
  };
}

interface Database {
  sequelize: Sequelize;
  drop(): Promise<void>;
}

async function freshDatabase(label: string): Promise<Database> {
  if (SERVICES.databaseUrl) {
    const admin = new Sequelize(SERVICES.databaseUrl, { logging: false });
    const name = `${new URL(SERVICES.databaseUrl).pathname.slice(1)}_${label}_${randomBytes(4).toString('hex')}`;
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

/** Every table's columns (as the database describes them) and indexes (name, fields, uniqueness), by name. */
async function schemaOf(sequelize: Sequelize): Promise<Record<string, unknown>> {
  const qi = sequelize.getQueryInterface();
  const tables = (await qi.showAllTables()).map(String).sort();
  const schema: Record<string, unknown> = {};
  for (const table of tables) {
    const indexes = (await qi.showIndex(table)) as { name: string; unique: boolean; fields: { attribute: string }[] }[];
    schema[table] = {
      columns: await qi.describeTable(table),
      indexes: indexes.map((i) => ({ name: i.name, unique: Boolean(i.unique), fields: i.fields.map((f) => f.attribute) })).sort((a, b) => a.name.localeCompare(b.name)),
    };
  }
  return schema;
}

let clean: Database;
let faulted: Database;
beforeAll(async () => {
  [clean, faulted] = [await freshDatabase('clean'), await freshDatabase('rerun')];
});
afterAll(async () => {
  await clean?.drop();
  await faulted?.drop();
});

test('every migration, failed between two of its steps and run again, ends where a clean run does', async () => {
  const names = (await createMigrator(clean.sequelize).pending()).map((m) => m.name);
  const failures: string[] = [];
  for (const name of names) {
    // The clean database, one migration at a time: how many steps this one takes.
    const steps = { steps: 0 };
    await createMigrator(clean.sequelize, () => {}, counted(steps)).up({ to: name });
    if (steps.steps < 2) {
      await createMigrator(faulted.sequelize).up({ to: name });
      continue;
    }
    // The other database: fail it in the middle, then run it again as an operator would.
    const middle = Math.floor(steps.steps / 2) + 1;
    const failed = await createMigrator(faulted.sequelize, () => {}, counted({ steps: 0 }, middle))
      .up({ to: name })
      .then(() => undefined, (err: unknown) => err);
    if (!failed) failures.push(`${name}: did not fail at step ${middle} of ${steps.steps}`);
    expect(await createMigrator(faulted.sequelize).pending()).toEqual(expect.arrayContaining([expect.objectContaining({ name })]));
    const rerun = await createMigrator(faulted.sequelize)
      .up({ to: name })
      .then(() => undefined, (err: unknown) => `${name}: running it again failed: ${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}`);
    if (rerun) failures.push(rerun);
  }
  expect(failures).toEqual([]);
  expect(await createMigrator(faulted.sequelize).pending()).toEqual([]);
  expect(await schemaOf(faulted.sequelize)).toEqual(await schemaOf(clean.sequelize));
}, 300_000);
