import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0050 on a database that already holds incidents, on the backend this run uses: each gains an urgency, a priority
 * and a service, null for those stored before (their deliveries were not kept: a filter on what counts never leaves
 * them out); down takes the three away and keeps the incidents.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig50'));
});
afterAll(async () => drop());

const incidents = () =>
  sequelize.query<Record<string, unknown>>('SELECT * FROM incidents ORDER BY id', { type: QueryTypes.SELECT }).then((rows) =>
    rows.map((r) => [r.id, r.title, r.urgency, r.priority, r.service]),
  );

test('0050 gives incidents an urgency, a priority and a service, null for those already stored; down and up again keep the incidents', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0050-incident-triage') - 1] });
  await sequelize.query(
    `INSERT INTO incidents (id, repository_id, git_app_id, organization_id, app_id, board_key, external_id, title, created_at) VALUES
       ('inc_p', NULL, NULL, 'org_t', 'app_t', 'PNE3JZM', 'Q2CKYRLH85UNN4', 'Paged', '2026-09-01 10:00:00.000')`,
  );
  expect((await migrator.up({ to: '0050-incident-triage' })).map((m) => m.name)).toEqual(['0050-incident-triage']);
  expect(await incidents()).toEqual([['inc_p', 'Paged', null, null, null]]);
  await sequelize.query(
    `INSERT INTO incidents (id, repository_id, git_app_id, organization_id, app_id, board_key, external_id, title, created_at, urgency, priority, service) VALUES
       ('inc_q', NULL, NULL, 'org_t', 'app_t', 'PNE3JZM', 'Q3', 'Paged again', '2026-09-02 10:00:00.000', 'low', 'P3', 'Webhook Tester')`,
  );
  expect(await incidents()).toEqual([
    ['inc_p', 'Paged', null, null, null],
    ['inc_q', 'Paged again', 'low', 'P3', 'Webhook Tester'],
  ]);

  await migrator.down({ to: '0050-incident-triage' });
  const columns = Object.keys(await sequelize.getQueryInterface().describeTable('incidents'));
  expect(columns.filter((c) => ['urgency', 'priority', 'service'].includes(c))).toEqual([]);
  expect((await sequelize.query<{ id: string }>('SELECT id FROM incidents ORDER BY id', { type: QueryTypes.SELECT })).map((r) => r.id)).toEqual(['inc_p', 'inc_q']);

  await migrator.up();
  expect(await incidents()).toEqual([
    ['inc_p', 'Paged', null, null, null],
    ['inc_q', 'Paged again', null, null, null],
  ]);
});
