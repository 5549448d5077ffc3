import { literal, Model, Op, WhereOptions } from 'sequelize';
import { Commit, Team, User } from '../../db/models';
import { scopeKey } from '../../src/persistence/query/scopeKey';
import type { ListSource } from '../../src/persistence/query/listSource';
import { startTestApp, TestApp } from '../support/harness';

/** The count cache names a list by the conditions its queries run: equal only where the selected rows are. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const source = (where: WhereOptions, extra: Partial<ListSource<string, Model>> = {}): ListSource<string, Model> => ({ model: Team, where, toItem: (row: Model) => String(row.get('id')), ...extra });

test('equal conditions built separately give one key; any difference in value, operator, table or join gives another', () => {
  const a = scopeKey(source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }));
  const b = scopeKey(source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }));
  expect(a).toBe(b);
  const others = [
    source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_c'] } }, { id: { [Op.in]: ['t1'] } }] }),
    source({ [Op.or]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }),
    source({ [Op.and]: [{ organization_id: { [Op.notIn]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }),
    source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: literal('(SELECT 1)') } }] }),
    source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }, { replacements: { userId: 'usr_x' } }),
    { ...source({ [Op.and]: [{ organization_id: { [Op.in]: ['org_a', 'org_b'] } }, { id: { [Op.in]: ['t1'] } }] }), model: Commit },
    source({}, { partition: { column: 'organization_id', values: ['org_a'] } }),
    source({}, { include: [{ model: User, as: 'user', required: true }] }),
  ].map(scopeKey);
  expect(new Set([a, ...others]).size).toBe(others.length + 1);
});

test('literals differ by their text, and values by their type', () => {
  expect(scopeKey(source({ id: literal('a') }))).not.toBe(scopeKey(source({ id: literal('b') })));
  expect(scopeKey(source({ id: 1 }))).not.toBe(scopeKey(source({ id: '1' })));
});
