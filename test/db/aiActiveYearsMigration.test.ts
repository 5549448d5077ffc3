import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0059 on a database that already holds ai_active_months, on the backend this run uses: each member's and tool's
 * months land in their year's row, a month's bits in its own column, worked by hand across a year's end, and the
 * monthly table goes. Down makes the monthly rows again from the years; up again ends as the first up did.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig59'));
});
afterAll(async () => drop());

const bits = (...days: number[]) => days.reduce((sum, d) => sum + 2 ** (d - 1), 0);
const noMonths = { m01: 0, m02: 0, m03: 0, m04: 0, m05: 0, m06: 0, m07: 0, m08: 0, m09: 0, m10: 0, m11: 0, m12: 0 };
const numbers = <T extends object>(rows: T[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) && k !== 'month' ? Number(v) : v])));
const years = async () =>
  numbers(await sequelize.query<Record<string, unknown>>('SELECT * FROM ai_active_years ORDER BY organization_id, tool, user_key, year', { type: QueryTypes.SELECT }));
const months = async () =>
  numbers(await sequelize.query<Record<string, unknown>>('SELECT organization_id, tool, user_key, month, days FROM ai_active_months ORDER BY organization_id, tool, user_key, month', { type: QueryTypes.SELECT }));
const tables = async () => (await sequelize.getQueryInterface().showAllTables()).map(String);

test("0059 gathers each member's and tool's months into their year, a column a month, in place of the monthly rows; down and up again keep them", async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0059-ai-active-years') - 1] });
  await sequelize.query(`INSERT INTO ai_active_months (organization_id, user_key, month, tool, days) VALUES
    ('org_y', 'usr_ada', '2025-12', '', ${bits(1, 31)}), ('org_y', 'usr_ada', '2025-12', 'copilot', ${bits(31)}),
    ('org_y', 'usr_ada', '2026-01', '', ${bits(1)}), ('org_y', 'usr_ada', '2026-10', '', ${bits(2, 3)}),
    ('org_y', 'usr_bo', '2026-01', 'claude_code', ${bits(15)}), ('org_z', 'usr_ada', '2026-10', '', ${bits(9)})`);
  const monthly = await months();

  expect((await migrator.up({ to: '0059-ai-active-years' })).map((m) => m.name)).toEqual(['0059-ai-active-years']);
  expect(await tables()).not.toContain('ai_active_months');
  const yearly = await years();
  expect(yearly).toEqual([
    { organization_id: 'org_y', tool: '', user_key: 'usr_ada', year: 2025, ...noMonths, m12: bits(1, 31) },
    { organization_id: 'org_y', tool: '', user_key: 'usr_ada', year: 2026, ...noMonths, m01: bits(1), m10: bits(2, 3) },
    { organization_id: 'org_y', tool: 'claude_code', user_key: 'usr_bo', year: 2026, ...noMonths, m01: bits(15) },
    { organization_id: 'org_y', tool: 'copilot', user_key: 'usr_ada', year: 2025, ...noMonths, m12: bits(31) },
    { organization_id: 'org_z', tool: '', user_key: 'usr_ada', year: 2026, ...noMonths, m10: bits(9) },
  ]);

  await migrator.down({ to: '0059-ai-active-years' });
  expect(await tables()).not.toContain('ai_active_years');
  expect(await months()).toEqual(monthly);
  await migrator.up({ to: '0059-ai-active-years' });
  expect(await years()).toEqual(yearly);
});
