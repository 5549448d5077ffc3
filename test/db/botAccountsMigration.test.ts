import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0056 on a database that already holds pull requests and their counts, on the backend this run uses: every stored row
 * is a person's (no login was kept before), the daily and monthly counts keep their numbers under a key that now holds
 * `bot`, so a bot's row of the same day can sit beside them; down folds the bots' rows back into the counts they were
 * apart from, and up again starts from there.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig56'));
});
afterAll(async () => drop());

const rows = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
const days = () => rows<{ scope_id: string; day: string; pull_requests: number; bot?: number }>('SELECT * FROM pull_request_days ORDER BY scope_id, day');
const months = () => rows<{ scope_id: string; month: string; pull_requests: number; bot?: number }>('SELECT * FROM pull_request_months ORDER BY scope_id, month');
const plain = (list: { bot?: number | string; pull_requests: number | string }[]) => list.map((r) => ({ bot: r.bot === undefined ? undefined : Number(r.bot), n: Number(r.pull_requests) }));

test('0056 keeps the counts under a key with bot, each stored row a person’s; down folds the bots back; up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0056-bot-accounts') - 1] });
  await sequelize.query("INSERT INTO pull_request_days (scope_id, day, measure, ai, band, pull_requests) VALUES ('org_t', '2026-03-02', 1, 0, 3, 5)");
  await sequelize.query("INSERT INTO pull_request_months (scope_id, month, measure, ai, band, pull_requests) VALUES ('org_t', '2026-03', 1, 0, 3, 7)");
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, author_id, created_at)
     VALUES ('pr_t', 'repo_t', 'app_t', 'org_t', 1, 'Bump lodash', 'open', NULL, '2026-03-02 10:00:00.000')`,
  );

  expect((await migrator.up({ to: '0056-bot-accounts' })).map((m) => m.name)).toEqual(['0056-bot-accounts']);
  expect(plain(await days())).toEqual([{ bot: 0, n: 5 }]);
  expect(plain(await months())).toEqual([{ bot: 0, n: 7 }]);
  expect(await rows('SELECT id, author_login, bot FROM pull_requests')).toEqual([{ id: 'pr_t', author_login: null, bot: 0 }]);
  expect(await rows('SELECT organization_id FROM metric_recomputations')).toEqual([]);
  // A bot's pull requests of the same day, measure, AI mark and band: a row of their own.
  await sequelize.query("INSERT INTO pull_request_days (scope_id, day, measure, ai, band, bot, pull_requests) VALUES ('org_t', '2026-03-02', 1, 0, 3, 3, 2)");
  await sequelize.query("INSERT INTO pull_request_months (scope_id, month, measure, ai, band, bot, pull_requests) VALUES ('org_t', '2026-03', 1, 0, 3, 3, 2)");
  expect(plain(await days())).toEqual([
    { bot: 0, n: 5 },
    { bot: 3, n: 2 },
  ]);

  await migrator.down({ to: '0056-bot-accounts' });
  expect(plain(await days())).toEqual([{ bot: undefined, n: 7 }]);
  expect(plain(await months())).toEqual([{ bot: undefined, n: 9 }]);
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('pull_requests'))).not.toContain('author_login');

  await migrator.up();
  expect(plain(await days())).toEqual([{ bot: 0, n: 7 }]);
});
