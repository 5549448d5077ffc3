import { Transaction } from 'sequelize';
import { Repository } from '../../../db/models';
import type { Change } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { refreshDeployments } from '../git/deployments/deployments';
import type { PlacedRepository } from '../git/placement';
import type { BoardRef } from './operationInput';

/**
 * The repositories an app's incident or deployment belongs to (docs/incidents.md#mapping): those of the first of its
 * boards mapped to any (`npm run apps -- map --repository`, once per repository), the earliest mapped first (where a
 * deployment goes, and an incident is stored); else, where the names may name a repository (the deployments API),
 * the organization's repository of that id or full name (the earliest made, when two git apps hold one of that
 * name). None when none is: the organization keeps it, and a later mapping places it.
 */
export async function placedBoard(
  transaction: Transaction,
  app: { appId: string; organizationId: string },
  board: BoardRef,
): Promise<{ boardKey: string | null; repository: PlacedRepository | null; repositories: string[] }> {
  if (board.candidates.length === 0) return { boardKey: null, repository: null, repositories: [] };
  const mapped = await new ChangeSql(transaction).select<{ board_key: string; repository_id: string }>(
    'SELECT board_key, repository_id FROM board_repositories WHERE app_id = :appId AND board_key IN (:candidates) ORDER BY created_at, repository_id',
    { appId: app.appId, candidates: board.candidates },
  );
  for (const key of board.candidates) {
    const repositories = mapped.filter((m) => m.board_key === key).map((m) => m.repository_id);
    if (repositories.length) return { boardKey: key, repository: await repositoryOf(transaction, repositories[0]), repositories };
  }
  const [first] = board.candidates;
  const named = board.namesRepository ? await repositoryNamed(transaction, app.organizationId, first) : null;
  return { boardKey: first, repository: named, repositories: named ? [named.id] : [] };
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
 * the board now places it (its deployments to its first repository, its incidents to each), and what the
 * repositories it left and joined keep beside their deployments is recomputed.
 */
export async function placeBoardOperations(change: Change, app: { appId: string; organizationId: string; namesRepository: boolean }, boardKey: string): Promise<void> {
  const { repository, repositories } = await placedBoard(change.transaction, app, { candidates: [boardKey], namesRepository: app.namesRepository });
  const target = { repositoryId: repository?.id ?? null, gitAppId: repository?.git_app_id ?? null };
  const sql = new ChangeSql(change.transaction);
  const keys = { appId: app.appId, boardKey };
  const touched = new Set<string>();
  const held = await sql.select<{ repository_id: string | null }>('SELECT DISTINCT repository_id FROM deployments WHERE app_id = :appId AND board_key = :boardKey', keys);
  const left = held.map((r) => r.repository_id).filter((id) => id !== target.repositoryId);
  if (left.length) {
    // A deployment leaving every repository keeps no mark its repository gave it (placement.ts UNPLACED_MARKS).
    const marks = target.repositoryId === null ? ', shipped_ai = 0, blamed = 0, rework = 0' : '';
    await sql.run(`UPDATE deployments SET repository_id = :repositoryId, git_app_id = :gitAppId${marks} WHERE app_id = :appId AND board_key = :boardKey`, { ...keys, ...target });
    change.wrote('deployments');
    for (const id of [...left, target.repositoryId]) if (id) touched.add(id);
  }
  for (const id of await placeBoardIncidents(change, keys, target, repositories)) touched.add(id);
  for (const repositoryId of [...touched].sort()) await refreshDeployments(change, { id: repositoryId, organization_id: app.organizationId }, null);
}

/** The board's incidents stored under its first repository and belonging to each; the repositories they left or joined. */
async function placeBoardIncidents(change: Change, keys: { appId: string; boardKey: string }, target: { repositoryId: string | null; gitAppId: string | null }, repositories: string[]): Promise<string[]> {
  const sql = new ChangeSql(change.transaction);
  const ofBoard = 'SELECT id FROM incidents WHERE app_id = :appId AND board_key = :boardKey';
  const stored = await sql.select<{ repository_id: string | null; member: string | null }>(
    `SELECT DISTINCT i.repository_id, ir.repository_id AS member FROM incidents i LEFT JOIN incident_repositories ir ON ir.incident_id = i.id
     WHERE i.app_id = :appId AND i.board_key = :boardKey`,
    keys,
  );
  if (stored.length === 0) return [];
  const before = [...new Set(stored.flatMap((s) => (s.member ? [s.member] : [])))].sort();
  const unchanged = stored.every((s) => s.repository_id === target.repositoryId) && JSON.stringify(before) === JSON.stringify([...repositories].sort());
  if (unchanged) return [];
  await sql.run(`UPDATE incidents SET repository_id = :repositoryId, git_app_id = :gitAppId WHERE app_id = :appId AND board_key = :boardKey`, { ...keys, ...target });
  await sql.run(`DELETE FROM incident_repositories WHERE incident_id IN (${ofBoard})`, keys);
  for (const repositoryId of repositories) {
    await sql.run(`INSERT INTO incident_repositories (incident_id, repository_id, organization_id) SELECT id, :repositoryId, organization_id FROM incidents WHERE app_id = :appId AND board_key = :boardKey`, { ...keys, repositoryId });
  }
  change.wrote('incidents', 'incident_repositories');
  return [...new Set([...before, ...repositories])];
}
