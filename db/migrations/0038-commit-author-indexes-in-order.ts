import { QueryInterface } from 'sequelize';

/**
 * The commits' author indexes of 0007, (organization | repository, created_at, author_id), with `id` after
 * `created_at`: (organization | repository, created_at, id, author_id). MariaDB chose the author index for a
 * list's deep page, `WHERE organization_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY
 * created_at DESC, id DESC LIMIT 200, 50` (the range after a page anchor), since it shares the (scope, created_at)
 * prefix of the list's own (scope, created_at, id) index, and then sorted the 118k commits of the range before
 * the 250 it needed: 170 ms alone, about 2 s each under 32 concurrent requests (`/v1/commits` at page 4765 served
 * 15 a second). With `id` in the same place in both indexes, either gives the list's order; the metrics' queries
 * read the same ranges and the author from either, as before.
 */
const SCOPES = ['organization_id', 'repository_id'] as const;
const before = (scope: string) => ({ name: `commits_${scope}_created_at_author_id`, fields: [scope, 'created_at', 'author_id'] });
const after = (scope: string) => ({ name: `commits_${scope}_created_at_id_author_id`, fields: [scope, 'created_at', 'id', 'author_id'] });

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const scope of SCOPES) {
    // The new index first: the metrics' queries always have one to read.
    await qi.addIndex('commits', after(scope).fields, { name: after(scope).name });
    await qi.removeIndex('commits', before(scope).name);
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const scope of SCOPES) {
    await qi.addIndex('commits', before(scope).fields, { name: before(scope).name });
    await qi.removeIndex('commits', after(scope).name);
  }
}
