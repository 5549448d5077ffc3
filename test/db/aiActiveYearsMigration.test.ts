import { Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';
import { aiActiveYearsOfMonths, storedAiActiveYears } from '../support/aiActiveYears';

/**
 * 0059 on a database that already holds ai_active_months, on the backend this run uses: each member's and tool's
 * months land in their year's row, a month's bits in its own column, worked by hand across a year's end. Down takes
 * the table away; up again ends as the first up did.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig59'));
});
afterAll(async () => drop());

const bits = (...days: number[]) => days.reduce((sum, d) => sum + 2 ** (d - 1), 0);
const months = (set: Record<string, number>) => ({ m01: 0, m02: 0, m03: 0, m04: 0, m05: 0, m06: 0, m07: 0, m08: 0, m09: 0, m10: 0, m11: 0, m12: 0, ...set });

test("0059 gathers each member's and tool's months into their year, a column a month; down and up again keep them", async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0059-ai-active-years') - 1] });
  await sequelize.query(`INSERT INTO ai_active_months (organization_id, user_key, month, tool, days) VALUES
    ('org_y', 'usr_ada', '2025-12', '', ${bits(1, 31)}), ('org_y', 'usr_ada', '2025-12', 'copilot', ${bits(31)}),
    ('org_y', 'usr_ada', '2026-01', '', ${bits(1)}), ('org_y', 'usr_ada', '2026-10', '', ${bits(2, 3)}),
    ('org_y', 'usr_bo', '2026-01', 'claude_code', ${bits(15)}), ('org_z', 'usr_ada', '2026-10', '', ${bits(9)})`);

  expect((await migrator.up({ to: '0059-ai-active-years' })).map((m) => m.name)).toEqual(['0059-ai-active-years']);
  const after = await storedAiActiveYears(sequelize);
  expect(after).toEqual([
    { organization_id: 'org_y', tool: '', user_key: 'usr_ada', year: 2025, ...months({ m12: bits(1, 31) }) },
    { organization_id: 'org_y', tool: '', user_key: 'usr_ada', year: 2026, ...months({ m01: bits(1), m10: bits(2, 3) }) },
    { organization_id: 'org_y', tool: 'claude_code', user_key: 'usr_bo', year: 2026, ...months({ m01: bits(15) }) },
    { organization_id: 'org_y', tool: 'copilot', user_key: 'usr_ada', year: 2025, ...months({ m12: bits(31) }) },
    { organization_id: 'org_z', tool: '', user_key: 'usr_ada', year: 2026, ...months({ m10: bits(9) }) },
  ]);
  expect(after).toEqual(await aiActiveYearsOfMonths(sequelize));

  await migrator.down({ to: '0059-ai-active-years' });
  expect((await sequelize.getQueryInterface().showAllTables()).map(String)).not.toContain('ai_active_years');
  await migrator.up({ to: '0059-ai-active-years' });
  expect(await storedAiActiveYears(sequelize)).toEqual(after);
});
