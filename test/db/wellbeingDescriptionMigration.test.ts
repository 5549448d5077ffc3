import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { DASHBOARD_TYPES } from '../../src/services/dashboards/catalog';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0052 on a database that already holds the catalog 0037 wrote, on the backend this run uses: the wellbeing entry's
 * description stops naming meetings, which nothing records, and says what catalog.ts declares; down puts 0037's text
 * back and leaves the other entries as they were.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig52'));
});
afterAll(async () => drop());

const catalog = () =>
  sequelize
    .query<{ key: string; description: string }>('SELECT `key`, description FROM dashboard_catalog ORDER BY `key`', { type: QueryTypes.SELECT })
    .then((rows) => new Map(rows.map((r) => [r.key, r.description])));

const WITH_MEETINGS = 'Commit activity and the interactions (reviews, messages, assignments, meetings) people carry, period by period.';

test('0052 takes meetings out of the wellbeing description, as the catalog declares it; down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0052-wellbeing-description') - 1] });
  const before = await catalog();
  expect(before.get('wellbeing')).toBe(WITH_MEETINGS);

  expect((await migrator.up({ to: '0052-wellbeing-description' })).map((m) => m.name)).toEqual(['0052-wellbeing-description']);
  const after = await catalog();
  const declared = DASHBOARD_TYPES.find((t) => t.key === 'wellbeing')?.description;
  expect(after.get('wellbeing')).toBe(declared);
  expect(declared).not.toMatch(/meeting/i);
  expect([...after].filter(([key]) => key !== 'wellbeing')).toEqual([...before].filter(([key]) => key !== 'wellbeing'));

  await migrator.down({ to: '0052-wellbeing-description' });
  expect(await catalog()).toEqual(before);

  await migrator.up();
  expect((await catalog()).get('wellbeing')).toBe(declared);
});
