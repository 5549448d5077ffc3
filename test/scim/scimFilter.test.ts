import { Op } from 'sequelize';
import { OrganizationMembership } from '../../db/models';
import { filterToWhere } from '../../src/services/people/scimFilter';
import { parseFilter } from '../../src/scim/filter';
import { toScimError } from '../../src/scim/errors';
import { USER_FILTER } from '../../src/services/people/scimUserFilter';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) run as SQL on both databases: every operator, and/or/not, grouping, value
 * paths, schema-qualified names, case rules (caseExact), and a 400 `invalidFilter` for every mistake.
 */

let t: TestApp;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestApp();
  const m = t.runtime.writers.members;
  const people = [
    { key: 'ann', email: 'Ann@filter.test', name: 'Ann Lee', externalId: 'ext-1', title: 'Engineer', role: 'collaborator', active: true },
    { key: 'bob', email: 'bob@filter.test', name: 'Bob Diaz', externalId: 'ext-2', title: 'Designer', role: 'manager', active: true },
    { key: 'carl', email: 'carl@filter.test', name: 'Carl 100%', externalId: null, title: null, role: 'admin', active: true },
    { key: 'dora', email: 'do_ra@filter.test', name: 'Dora Kim', externalId: null, title: null, role: 'collaborator', active: false },
  ] as const;
  for (const p of people) {
    const { user } = await m.provision(DEMO.orgs.globex, { ...p, role: p.role, externalId: p.externalId, title: p.title });
    ids[user.id] = p.key;
  }
});
afterAll(async () => t.close());

async function matching(filter: string): Promise<string[]> {
  const rows = await OrganizationMembership.findAll({
    where: { [Op.and]: [{ organization_id: DEMO.orgs.globex }, { user_email: { [Op.like]: '%@filter.test' } }, filterToWhere(parseFilter(filter), USER_FILTER)] },
  });
  return rows.map((r) => ids[r.user_id]).sort();
}

const cases: [string, string[]][] = [
  ['userName eq "ANN@filter.test"', ['ann']],
  ['username EQ "ann@FILTER.test"', ['ann']],
  ['userName ne "ann@filter.test"', ['bob', 'carl', 'dora']],
  ['userName co "nn"', ['ann']],
  ['userName sw "B"', ['bob']],
  ['userName ew "@filter.test"', ['ann', 'bob', 'carl', 'dora']],
  ['userName co "_"', ['dora']],
  ['displayName co "%"', ['carl']],
  ['displayName eq "ann lee"', ['ann']],
  ['name.formatted sw "dora"', ['dora']],
  ['userName gt "c"', ['carl', 'dora']],
  ['userName le "bob@filter.test"', ['ann', 'bob']],
  ['externalId eq "ext-1"', ['ann']],
  ['externalId eq "EXT-1"', []],
  ['externalId pr', ['ann', 'bob']],
  ['not (externalId pr)', ['carl', 'dora']],
  ['title eq "engineer"', ['ann']],
  ['active eq false', ['dora']],
  ['active eq "False"', ['dora']],
  ['active ne true', ['dora']],
  ['not (active eq true)', ['dora']],
  ['emails[type eq "work" and value co "bob"]', ['bob']],
  ['emails[type eq "home"]', []],
  ['emails[primary eq true] and userName sw "c"', ['carl']],
  ['emails.value eq "carl@filter.test"', ['carl']],
  ['roles[value eq "admin"]', ['carl']],
  ['roles.value eq "MANAGER"', ['bob']],
  ['meta.created gt "2000-01-01T00:00:00Z"', ['ann', 'bob', 'carl', 'dora']],
  ['meta.lastModified ge "2999-01-01T00:00:00Z"', []],
  ['(userName sw "a" or userName sw "b") and active eq true', ['ann', 'bob']],
  ['userName sw "a" or (userName sw "d" and not (active eq true))', ['ann', 'dora']],
  ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "carl@filter.test"', ['carl']],
  ['id eq "usr_nobody"', []],
];

test.each(cases)('%s', async (filter, expected) => {
  expect(await matching(filter)).toEqual(expected);
});

test('id filters by the user id', async () => {
  const ann = Object.keys(ids).find((id) => ids[id] === 'ann')!;
  expect(await matching(`id eq "${ann}"`)).toEqual(['ann']);
});

const mistakes: [string, RegExp][] = [
  ['userName eq', /cannot be parsed/],
  ['userName eq "x" and', /cannot be parsed/],
  ['(userName eq "x"', /cannot be parsed/],
  ['nickName eq "x"', /'nickName' cannot be filtered on; filter on one of: id, username/],
  ['active gt true', /only eq, ne and pr/],
  ['active eq "yes"', /compare it with true or false/],
  ['meta.created gt "yesterday"', /dateTime/],
  ['userName eq 5', /is a string/],
  ['userName co null', /cannot compare 'userName' with null/],
  ['displayName[value eq "x"]', /no sub-attributes/],
  ['emails[roles[value eq "x"]]', /cannot be parsed|no sub-attributes/],
];

test.each(mistakes)('invalidFilter: %s', (filter, message) => {
  let error: unknown;
  try {
    filterToWhere(parseFilter(filter), USER_FILTER);
  } catch (e) {
    error = e;
  }
  // As the SCIM surface answers it, whether parsing or translating refused it.
  expect(toScimError(error)).toMatchObject({ status: 400, scimType: 'invalidFilter', detail: expect.stringMatching(message) });
});

test('filters nested too deep or with too many comparisons are a 400 invalidFilter, not a database error', () => {
  for (const filter of [`${'not ('.repeat(30)}userName eq "a"${')'.repeat(30)}`, Array.from({ length: 150 }, (_, i) => `userName eq "u${i}"`).join(' or ')]) {
    let error: unknown;
    try {
      parseFilter(filter);
    } catch (e) {
      error = e;
    }
    expect(toScimError(error)).toMatchObject({ status: 400, scimType: 'invalidFilter', detail: expect.stringMatching(/at most/) });
  }
  expect(() => parseFilter(`${'not ('.repeat(10)}userName eq "a"${')'.repeat(10)}`)).not.toThrow();
});
