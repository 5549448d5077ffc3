import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { AI_COLUMNS, WORK_COLUMNS } from '../../db/rollups/memberActiveYears';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0061 on a database that already holds member_active_months, on the backend this run uses: each member's months
 * land in their year's row, a month's work and AI bits each in its own column, worked by hand across a year's end,
 * and the monthly table goes. Down makes the monthly rows again from the years; up again ends as the first up did.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig61'));
});
afterAll(async () => drop());

const bits = (...days: number[]) => days.reduce((sum, d) => sum + 2 ** (d - 1), 0);
const noDays = Object.fromEntries([...WORK_COLUMNS, ...AI_COLUMNS].map((c) => [c, 0]));
const numbers = <T extends object>(rows: T[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) && k !== 'month' ? Number(v) : v])));
const years = async () => numbers(await sequelize.query<Record<string, unknown>>('SELECT * FROM member_active_years ORDER BY organization_id, user_id, year', { type: QueryTypes.SELECT }));
const months = async () =>
  numbers(
    await sequelize.query<Record<string, unknown>>('SELECT organization_id, user_id, month, work_days, ai_days FROM member_active_months ORDER BY organization_id, user_id, month', {
      type: QueryTypes.SELECT,
    }),
  );
const tables = async () => (await sequelize.getQueryInterface().showAllTables()).map(String);

test("0061 gathers each member's months at work and with AI into their year, a column a month for each, in place of the monthly rows; down and up again keep them", async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0061-member-active-years') - 1] });
  // Ada worked on December 1 and 31 and used AI on the 31st, then worked on January 2 and used AI on October 5;
  // Bo used AI alone in January; Ada in another organization worked on October 9.
  await sequelize.query(`INSERT INTO member_active_months (organization_id, user_id, month, work_days, ai_days) VALUES
    ('org_y', 'usr_ada', '2025-12', ${bits(1, 31)}, ${bits(31)}), ('org_y', 'usr_ada', '2026-01', ${bits(2)}, 0),
    ('org_y', 'usr_ada', '2026-10', 0, ${bits(5)}), ('org_y', 'usr_bo', '2026-01', 0, ${bits(15)}),
    ('org_z', 'usr_ada', '2026-10', ${bits(9)}, 0)`);
  const monthly = await months();

  expect((await migrator.up({ to: '0061-member-active-years' })).map((m) => m.name)).toEqual(['0061-member-active-years']);
  expect(await tables()).not.toContain('member_active_months');
  const yearly = await years();
  expect(yearly).toEqual([
    { organization_id: 'org_y', user_id: 'usr_ada', year: 2025, ...noDays, work_m12: bits(1, 31), ai_m12: bits(31) },
    { organization_id: 'org_y', user_id: 'usr_ada', year: 2026, ...noDays, work_m01: bits(2), ai_m10: bits(5) },
    { organization_id: 'org_y', user_id: 'usr_bo', year: 2026, ...noDays, ai_m01: bits(15) },
    { organization_id: 'org_z', user_id: 'usr_ada', year: 2026, ...noDays, work_m10: bits(9) },
  ]);

  await migrator.down({ to: '0061-member-active-years' });
  expect(await tables()).not.toContain('member_active_years');
  expect(await months()).toEqual(monthly);
  await migrator.up({ to: '0061-member-active-years' });
  expect(await years()).toEqual(yearly);
});
