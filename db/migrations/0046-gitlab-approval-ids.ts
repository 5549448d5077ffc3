import { QueryInterface } from 'sequelize';

/**
 * A GitLab approval is named by its approver alone, `approval:<username>` (src/integrations/gitlab/activity.ts), so
 * that the Merge Request Hook and the history importer, which reads approvals without a time, store it once. The hook
 * named it `approval:<username>:<time>` before (the merge request's `updated_at` as an ISO string, colons and all), so
 * importing a merge request whose approvals had come by hook stored each of them a second time. Here those ids are
 * renamed in place. GitLab user names hold only letters, digits, `_`, `.` and `-` (docs.gitlab.com/user/reserved_names),
 * so the name ends at the first colon after `approval:`; a hook without a user wrote `approval::<time>`, now `approval:`.
 *
 * A pull request that already has a row with the new id keeps its old rows as they are, and of one approver's several
 * old rows on one pull request (each delivery of an approval at another update time made one) only the earliest, by
 * `created_at` then `id`, is renamed. The others stay: they were counted when they arrived and the rollups hold them;
 * deleting them would change figures that a migration cannot compute again (db/ knows nothing of the writers).
 *
 * One statement, so a run stopped midway changed nothing, and a run after a complete one finds nothing left to rename.
 * MySQL refuses an UPDATE whose subquery reads the table it updates (error 1093; MariaDB accepts it since 10.3) unless
 * that subquery is a derived table, which it materializes first: the ids to rename are chosen in one.
 */
const OLD_APPROVAL = "LIKE 'approval:%:%'";

/** `approval:` is nine characters: the approver's name starts at the tenth and ends before the next colon. */
const renamed = (externalId: string) => `SUBSTR(${externalId}, 1, 8 + INSTR(SUBSTR(${externalId}, 10), ':'))`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const a = 'pull_request_activities';
  await qi.sequelize.query(
    `UPDATE ${a} SET external_id = ${renamed('external_id')}
     WHERE id IN (SELECT id FROM (
       SELECT approval.id FROM ${a} approval
       WHERE approval.kind = :approved AND approval.external_id ${OLD_APPROVAL}
         AND approval.git_app_id IN (SELECT id FROM git_apps WHERE provider = :gitlab)
         AND NOT EXISTS (SELECT 1 FROM ${a} taken WHERE taken.pull_request_id = approval.pull_request_id AND taken.external_id = ${renamed('approval.external_id')})
         AND NOT EXISTS (
           SELECT 1 FROM ${a} earlier
           WHERE earlier.pull_request_id = approval.pull_request_id AND earlier.kind = :approved AND earlier.external_id ${OLD_APPROVAL}
             AND ${renamed('earlier.external_id')} = ${renamed('approval.external_id')}
             AND (earlier.created_at < approval.created_at OR (earlier.created_at = approval.created_at AND earlier.id < approval.id)))
     ) AS earliest)`,
    { replacements: { approved: 'approved', gitlab: 'gitlab' } },
  );
}

/** The times the old ids carried are not kept anywhere else: they cannot be written back. */
export async function down(): Promise<void> {}
