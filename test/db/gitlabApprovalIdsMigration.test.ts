import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0046 on a database that already holds GitLab approvals under the hook's old ids, `approval:<username>:<time>` (the
 * merge request's `updated_at` as `Date.toISOString()` wrote it), on the backend this run uses: each approver's
 * earliest old row on a pull request takes the id the hook and the history importer now share, `approval:<username>`,
 * unless that pull request has it already; the rest, and every other provider's rows, stay as they are.
 */

let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig46'));
});
afterAll(async () => drop());

const activity = (id: string, pullRequest: string, gitApp: string, kind: string, externalId: string, at: string) =>
  `('${id}', '${pullRequest}', 'repo_${gitApp}', '${gitApp}', 'org_x', '${kind}', '${externalId}', '2026-03-02 ${at}:00.000')`;
const oldApproval = (username: string, at: string) => `approval:${username}:2026-03-02T${at}:00.000Z`;

test('0046 names the earliest old GitLab approval of each approver on a pull request by the approver alone; down and up again changes nothing', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: '0045-history-imports' });
  await sequelize.query(
    `INSERT INTO git_apps (id, organization_id, provider, name, is_active, created_at) VALUES
       ('gapp_gl', 'org_x', 'gitlab', 'GitLab', 1, '2026-01-01 00:00:00.000'),
       ('gapp_gh', 'org_x', 'github', 'GitHub', 1, '2026-01-01 00:00:00.000'),
       ('gapp_bb', 'org_x', 'bitbucket', 'Bitbucket', 1, '2026-01-01 00:00:00.000')`,
  );
  await sequelize.query(
    `INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, external_id, created_at) VALUES
       ${[
         // One approver once.
         activity('pra_a1', 'pr_1', 'gapp_gl', 'approved', oldApproval('ann.lee', '10:00'), '10:00'),
         // One approver twice (delivered at two update times): the earlier is renamed, though its id sorts later.
         activity('pra_b1', 'pr_1', 'gapp_gl', 'approved', oldApproval('bo_diaz', '12:00'), '12:00'),
         activity('pra_b9', 'pr_1', 'gapp_gl', 'approved', oldApproval('bo_diaz', '11:00'), '11:00'),
         activity('pra_n1', 'pr_1', 'gapp_gl', 'comment', 'note:1', '10:30'),
         // An approver the importer already stored under the new id.
         activity('pra_d1', 'pr_2', 'gapp_gl', 'approved', 'approval:dana', '09:00'),
         activity('pra_d2', 'pr_2', 'gapp_gl', 'approved', oldApproval('dana', '10:30'), '10:30'),
         // The same approver on another pull request, and a hook that named no user.
         activity('pra_a2', 'pr_2', 'gapp_gl', 'approved', oldApproval('ann.lee', '10:00'), '10:00'),
         activity('pra_x1', 'pr_2', 'gapp_gl', 'approved', oldApproval('', '14:00'), '14:00'),
         // GitHub names an approval by its review id; the second row has GitLab's old form (no GitHub delivery
         // writes it): only the provider keeps it out.
         activity('pra_g1', 'pr_3', 'gapp_gh', 'approved', 'review:2044891231', '10:00'),
         activity('pra_g2', 'pr_3', 'gapp_gh', 'approved', oldApproval('ann.lee', '10:00'), '10:00'),
         // Bitbucket's approvals keep their own `approved:<account>:<time>`.
         activity('pra_k1', 'pr_4', 'gapp_bb', 'approved', 'approved:{d301aafa-d676-4ee0-88be-962be7417567}:2026-03-02T10:00:00.000Z', '10:00'),
       ].join(', ')}`,
  );

  await migrator.up({ to: '0046-gitlab-approval-ids' });
  const ids = async () =>
    (await sequelize.query<{ id: string; external_id: string }>('SELECT id, external_id FROM pull_request_activities ORDER BY id', { type: QueryTypes.SELECT })).map((r) => [r.id, r.external_id]);
  const renamed = [
    ['pra_a1', 'approval:ann.lee'],
    ['pra_a2', 'approval:ann.lee'],
    ['pra_b1', oldApproval('bo_diaz', '12:00')],
    ['pra_b9', 'approval:bo_diaz'],
    ['pra_d1', 'approval:dana'],
    ['pra_d2', oldApproval('dana', '10:30')],
    ['pra_g1', 'review:2044891231'],
    ['pra_g2', oldApproval('ann.lee', '10:00')],
    ['pra_k1', 'approved:{d301aafa-d676-4ee0-88be-962be7417567}:2026-03-02T10:00:00.000Z'],
    ['pra_n1', 'note:1'],
    ['pra_x1', 'approval:'],
  ];
  expect(await ids()).toEqual(renamed);
  // The importer's row for Bo's approval is now the one already stored.
  await expect(sequelize.query(`INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, external_id, created_at) VALUES ${activity('pra_b5', 'pr_1', 'gapp_gl', 'approved', 'approval:bo_diaz', '11:00')}`)).rejects.toThrow();

  // Down keeps the new ids (the old ones' times are gone); up again finds nothing left to rename.
  await migrator.down({ to: '0046-gitlab-approval-ids' });
  expect(await ids()).toEqual(renamed);
  await migrator.up({ to: '0046-gitlab-approval-ids' });
  expect(await ids()).toEqual(renamed);
});
