import { Transaction } from 'sequelize';
import { Repository } from '../../../db/models';
import type { AppBoard } from '../../../db/models';
import type { Change } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { refreshDeployments } from '../git/deployments/deployments';
import type { PlacedRepository } from '../git/placement';
import type { BoardRef } from './operationInput';

/**
 * The repository an app's incident or deployment belongs to (docs/incidents.md#mapping): the first of its boards
 * mapped to one (`npm run apps -- map --repository`), else, where the names may name a repository (the deployments
 * API), the organization's repository of that id or full name (the earliest made, when two git apps hold one of
 * that name). Null when none is: the organization keeps it, and a later mapping places it.
 */
export async function placedBoard(transaction: Transaction, app: { appId: string; organizationId: string }, board: BoardRef): Promise<{ boardKey: string | null; repository: PlacedRepository | null }> {
  if (board.candidates.length === 0) return { boardKey: null, repository: null };
  const mapped = await new ChangeSql(transaction).select<Pick<AppBoard, 'board_key' | 'repository_id'>>(
    'SELECT board_key, repository_id FROM app_boards WHERE app_id = :appId AND board_key IN (:candidates)',
    { appId: app.appId, candidates: board.candidates },
  );
  for (const key of board.candidates) {
    const repositoryId = mapped.find((m) => m.board_key === key)?.repository_id;
    if (repositoryId) return { boardKey: key, repository: await repositoryOf(transaction, repositoryId) };
  }
  const [first] = board.candidates;
  return { boardKey: first, repository: board.namesRepository ? await repositoryNamed(transaction, app.organizationId, first) : null };
}

async function repositoryOf(transaction: Transaction, id: string): Promise<PlacedRepository | null> {
  return Repository.findByPk(id, { attributes: ['id', 'git_app_id', 'organization_id'], transaction });
}

/** The organization's repository of that id, or of that full name (through each of its git apps' name index). */
async function repositoryNamed(transaction: Transaction, organizationId: string, name: string): Promise<PlacedRepository | null> {
  const byId = await Repository.findByPk(name, { attributes: ['id', 'git_app_id', 'organization_id'], transaction });
  if (byId) return byId.organization_id === organizationId ? byId : null;
  const [byName] = await new ChangeSql(transaction).select<PlacedRepository>(
    `SELECT r.id, r.git_app_id, r.organization_id FROM git_apps g JOIN repositories r ON r.git_app_id = g.id AND r.full_name = :name
     WHERE g.organization_id = :organizationId ORDER BY r.created_at, r.id LIMIT 1`,
    { name, organizationId },
  );
  return byName ?? null;
}

/**
 * After a board of an incident tool or of the deployments API is mapped or unmapped: what it brought moves to where
 * the board now places it, and what the repositories it left and joined keep beside their deployments is recomputed.
 */
export async function placeBoardOperations(change: Change, app: { appId: string; organizationId: string; namesRepository: boolean }, boardKey: string): Promise<void> {
  const { transaction } = change;
  const { repository } = await placedBoard(transaction, app, { candidates: [boardKey], namesRepository: app.namesRepository });
  const target = { repositoryId: repository?.id ?? null, gitAppId: repository?.git_app_id ?? null };
  const sql = new ChangeSql(transaction);
  const keys = { appId: app.appId, boardKey };
  const touched = new Set<string>();
  for (const table of ['incidents', 'deployments'] as const) {
    const held = await sql.select<{ repository_id: string | null }>(`SELECT DISTINCT repository_id FROM ${table} WHERE app_id = :appId AND board_key = :boardKey`, keys);
    const left = held.map((r) => r.repository_id).filter((id) => id !== target.repositoryId);
    if (left.length === 0) continue;
    // A deployment leaving every repository keeps no mark its repository gave it (placement.ts UNPLACED_MARKS).
    const marks = table === 'deployments' && target.repositoryId === null ? ', shipped_ai = 0, blamed = 0, rework = 0' : '';
    await sql.run(`UPDATE ${table} SET repository_id = :repositoryId, git_app_id = :gitAppId${marks} WHERE app_id = :appId AND board_key = :boardKey`, { ...keys, ...target });
    change.wrote(table);
    for (const id of [...left, target.repositoryId]) if (id) touched.add(id);
  }
  for (const repositoryId of [...touched].sort()) await refreshDeployments(change, { id: repositoryId, organization_id: app.organizationId }, null);
}
