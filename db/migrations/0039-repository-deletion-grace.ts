import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * A repository its provider reports deleted is hidden, not erased, until REPOSITORY_DELETE_GRACE_DAYS have passed
 * (docs/ingest.md#a-deleted-repository): `deleted_at` is when the deletion arrived, null for a repository in sight.
 * The index serves the two reads of hidden repositories, both a range of the few non-null values: the lists that
 * leave them out, and the worker that erases them once their grace is over.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('repositories', 'deleted_at', { type: DataTypes.DATE(3), allowNull: true });
  await qi.addIndex('repositories', ['deleted_at'], { name: 'repositories_deleted_at' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('repositories', 'repositories_deleted_at');
  await dropColumn(qi, 'repositories', 'deleted_at');
}
