import type { Attributes } from 'sequelize';
import type { Incident } from '../../../../db/models';
import { toIncident } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { newId } from '../../../persistence/changes/ids';
import type { IncidentInput } from '../activity';
import { Placement, placedColumns, repositoriesOf, storedBy } from '../placement';
import { Applied, olderThanStored, sameTime } from '../recordIfNewer';
import { clip, LIMITS } from '../text';
import { refreshShippedChanges } from '../rollups/shippedChanges';

export type IncidentRow = Attributes<Incident>;

/** The commits a note names; a note names one or both. */
export interface IncidentNote {
  causeSha: string | null;
  fixSha: string | null;
}

/** One git provider's incident (an issue labelled `incident`): the records of one change, for one incident. */
export async function recordIncident(change: Change, placement: Placement, input: IncidentInput): Promise<Applied> {
  const records = await IncidentRecords.load(change, storedBy(placement), [input.externalId]);
  const applied = records.record(placement, input);
  await records.save();
  return applied;
}

/**
 * The incidents one change touches, found by repository (a git provider's) or by app (PagerDuty, Opsgenie, the
 * deployments API) and provider id, as stored and as the change leaves them (docs/incidents.md). As for pull
 * requests, an older state than the one stored changes nothing; an incident is announced opened once (and again
 * when reopened), and resolved when closed. The deployments of its repository (and of the one it left, when its
 * board was mapped elsewhere meanwhile) are marked again once the change's incidents are written: blamed by its
 * cause, rework while it was open or by its fix.
 *
 * A fixed number of statements for any number of incidents (a burst of PagerDuty deliveries is stored in one change,
 * docs/performance.md#the-incident-ingest-row): one locking read, one insert, one update, and each repository's marks
 * once.
 */
export class IncidentRecords {
  private readonly current: Map<string, IncidentRow | null>;
  /** Each incident's repositories (incident_repositories), by incident id: as stored, then as the change leaves them. */
  private readonly belongs: Map<string, readonly string[]>;
  private readonly repositoriesToMark = new Set<string>();

  private constructor(
    private readonly change: Change,
    private readonly by: StoredBy,
    private readonly before: Map<string, IncidentRow | null>,
    private readonly belonged: Map<string, readonly string[]>,
  ) {
    this.current = new Map(before);
    this.belongs = new Map(belonged);
  }

  /**
   * A locking read: a concurrent change of the same rows waits, then reads what it committed (a plain read on
   * MariaDB would keep this change's snapshot, and the later commit would overwrite a newer state with an older one).
   */
  static async load(change: Change, by: StoredBy, externalIds: string[]): Promise<IncidentRecords> {
    const keys = [...new Set(externalIds)].sort();
    const sql = new ChangeSql(change.transaction);
    const [column, value] = 'app_id' in by ? ['app_id', by.app_id] : ['repository_id', by.repository_id];
    const stored = keys.length
      ? await sql.select<StoredIncident>(`SELECT ${INCIDENT_COLUMNS.join(', ')} FROM incidents WHERE ${column} = :value AND external_id IN (:keys)${sql.forUpdate}`, { value, keys })
      : [];
    const rows = new Map(stored.map((s) => [s.external_id, incidentRow(s)]));
    const members = stored.length
      ? await sql.select<{ incident_id: string; repository_id: string }>('SELECT incident_id, repository_id FROM incident_repositories WHERE incident_id IN (:ids) ORDER BY incident_id, repository_id', { ids: stored.map((s) => s.id) })
      : [];
    const belonged = new Map<string, string[]>();
    for (const m of members) belonged.set(m.incident_id, [...(belonged.get(m.incident_id) ?? []), m.repository_id]);
    return new IncidentRecords(change, by, new Map(keys.map((key) => [key, rows.get(key) ?? null])), belonged);
  }

  /** The incident as its provider shows it now. */
  record(placement: Placement, input: IncidentInput): Applied {
    const by = storedBy(placement);
    if (JSON.stringify(by) !== JSON.stringify(this.by)) throw new Error('An incident recorded with records loaded for another repository or app');
    const stored = this.of(input.externalId);
    if (stored && olderThanStored(stored.provider_updated_at, input.updatedAt)) return this.fillIn(stored, input);
    // An issue's body is all its provider says of the commits; an app's state events do not repeat what its notes
    // (or an earlier call) named, so a commit not named again stays.
    const keeps = 'appId' in placement.source ? stored : null;
    const said = triageOf(input);
    const fields = {
      ...placedColumns(placement),
      title: clip(input.title, LIMITS.title),
      cause_sha: input.causeSha ?? keeps?.cause_sha ?? null,
      fix_sha: input.fixSha ?? keeps?.fix_sha ?? null,
      created_at: input.createdAt,
      resolved_at: input.resolvedAt,
      provider_updated_at: input.updatedAt,
      // What counts in time to restore (docs/metrics.md#what-counts): an event that says nothing of one keeps what was said.
      urgency: said.urgency ?? stored?.urgency ?? null,
      priority: said.priority ?? stored?.priority ?? null,
      service: said.service ?? stored?.service ?? null,
    };
    // Updated even when nothing shows: the provider's own update time moves on, and older deliveries stay stale.
    const row: IncidentRow = stored ? { ...stored, ...fields } : { id: newId('inc'), external_id: input.externalId, ...fields };
    this.current.set(input.externalId, row);
    this.belongTo(row.id, repositoriesOf(placement));
    if (stored && !visiblyDiffers(stored, row)) return 'unchanged';
    this.change.wrote('incidents');
    this.markRepositoriesOf(row.id);
    const incident = toIncident(row);
    const resolved = incident.resolved_at !== null;
    // A new incident that is already resolved was opened first.
    if (!stored && resolved) this.change.emit(placement.organizationId, 'incident.opened', { ...incident, resolved_at: null });
    if (!stored || (stored.resolved_at !== null) !== resolved) this.change.emit(placement.organizationId, resolved ? 'incident.resolved' : 'incident.opened', incident);
    return stored ? 'updated' : 'created';
  }

  /**
   * An older state than the one stored changes nothing, but for what the incident has none of and the older state
   * says (its urgency, priority or service, on one stored before they were kept: docs/incidents.md#what-is-stored),
   * so that the history imported again fills them in beside what the webhooks brought since.
   */
  private fillIn(stored: IncidentRow, input: IncidentInput): Applied {
    const said = triageOf(input);
    const filled = { urgency: stored.urgency ?? said.urgency ?? null, priority: stored.priority ?? said.priority ?? null, service: stored.service ?? said.service ?? null };
    if (filled.urgency === stored.urgency && filled.priority === stored.priority && filled.service === stored.service) return 'stale';
    this.current.set(input.externalId, { ...stored, ...filled });
    this.change.wrote('incidents');
    return 'updated';
  }

  /**
   * A later word on a stored incident (a PagerDuty or Opsgenie note saying `root cause: <sha>` or `fixed by:
   * <sha>`): the commits it names are kept. Null when none of that id is held (one opened before the app was
   * connected): nothing is made from a note alone.
   */
  note(externalId: string, named: IncidentNote): { applied: Applied; repositoryId: string | null } | null {
    const stored = this.of(externalId);
    if (!stored) return null;
    const repositoryId = stored.repository_id;
    const fields = { cause_sha: named.causeSha ?? stored.cause_sha, fix_sha: named.fixSha ?? stored.fix_sha ?? null };
    if (fields.cause_sha === stored.cause_sha && fields.fix_sha === (stored.fix_sha ?? null)) return { applied: 'unchanged', repositoryId };
    this.current.set(externalId, { ...stored, ...fields });
    this.change.wrote('incidents');
    this.markRepositoriesOf(stored.id);
    return { applied: 'updated', repositoryId };
  }

  /** Writes the incidents made and changed, a statement for each kind, then marks their repositories' deployments. */
  async save(): Promise<void> {
    const sql = new ChangeSql(this.change.transaction);
    const inserted: IncidentRow[] = [];
    const updated: IncidentRow[] = [];
    for (const [key, row] of this.current) {
      const was = this.before.get(key);
      if (row && row !== was) (was ? updated : inserted).push(row);
    }
    if (inserted.length) await sql.insert('incidents', INCIDENT_COLUMNS, inserted);
    if (updated.length) await sql.upsert('incidents', ['id'], INCIDENT_COLUMNS.slice(1), updated);
    await this.saveBelonging(sql, [...inserted, ...updated]);
    for (const repositoryId of [...this.repositoriesToMark].sort()) await refreshShippedChanges(this.change.transaction, repositoryId, null);
    this.repositoriesToMark.clear();
  }

  /**
   * Where an incident belongs now (its board's repositories, or its issue's one): a change of them marks the
   * deployments of those it left and joined again, and its figures' scope (incident_repositories) moves with it.
   */
  private belongTo(incidentId: string, repositories: readonly string[]): void {
    const was = this.belongs.get(incidentId) ?? [];
    const now = [...repositories].sort();
    if (JSON.stringify(was) === JSON.stringify(now)) return;
    for (const repositoryId of [...was, ...now]) this.repositoriesToMark.add(repositoryId);
    this.belongs.set(incidentId, now);
    this.change.wrote('incident_repositories');
  }

  private markRepositoriesOf(incidentId: string): void {
    for (const repositoryId of this.belongs.get(incidentId) ?? []) this.repositoriesToMark.add(repositoryId);
  }

  /** The incidents' repositories that changed: a delete and an insert for all of them. */
  private async saveBelonging(sql: ChangeSql, rows: IncidentRow[]): Promise<void> {
    const moved = rows.filter((row) => this.belongs.get(row.id) !== this.belonged.get(row.id));
    if (moved.length === 0) return;
    await sql.run('DELETE FROM incident_repositories WHERE incident_id IN (:ids)', { ids: moved.map((row) => row.id) });
    const pairs = moved.flatMap((row) => (this.belongs.get(row.id) ?? []).map((repository_id) => ({ incident_id: row.id, repository_id, organization_id: row.organization_id })));
    if (pairs.length) await sql.insert('incident_repositories', ['incident_id', 'repository_id', 'organization_id'], pairs);
  }

  private of(externalId: string): IncidentRow | null {
    const row = this.current.get(externalId);
    if (row === undefined) throw new Error(`incident ${externalId} was not loaded`);
    return row;
  }
}

type StoredBy = ReturnType<typeof storedBy>;

/** What an incident tool says of an incident, cut to its columns; undefined where it says nothing. */
const triageOf = (input: IncidentInput) => ({
  urgency: input.urgency,
  priority: input.priority === undefined ? undefined : clip(input.priority, LIMITS.priority),
  service: input.service === undefined ? undefined : clip(input.service, LIMITS.name),
});

const visiblyDiffers = (stored: IncidentRow, row: IncidentRow) =>
  row.title !== stored.title ||
  row.cause_sha !== stored.cause_sha ||
  (row.fix_sha ?? null) !== (stored.fix_sha ?? null) ||
  row.repository_id !== stored.repository_id ||
  !sameTime(row.created_at, stored.created_at) ||
  !sameTime(row.resolved_at, stored.resolved_at) ||
  row.urgency !== stored.urgency ||
  row.priority !== stored.priority ||
  row.service !== stored.service;

/** Every column of an incident, the key first. */
const INCIDENT_COLUMNS = [
  'id',
  'repository_id',
  'git_app_id',
  'organization_id',
  'app_id',
  'board_key',
  'external_id',
  'title',
  'cause_sha',
  'fix_sha',
  'created_at',
  'resolved_at',
  'provider_updated_at',
  'urgency',
  'priority',
  'service',
] as const satisfies readonly (keyof IncidentRow)[];

/** As read without the models: MariaDB's times come as Dates, SQLite's as the text the models wrote. */
type StoredIncident = Omit<IncidentRow, 'created_at' | 'resolved_at' | 'provider_updated_at'> & {
  created_at: Date | string;
  resolved_at: Date | string | null;
  provider_updated_at: Date | string | null;
};

const optionalTime = (value: Date | string | null | undefined) => (value === null || value === undefined ? null : new Date(value));
const incidentRow = (s: StoredIncident): IncidentRow => ({
  ...s,
  created_at: new Date(s.created_at),
  resolved_at: optionalTime(s.resolved_at),
  provider_updated_at: optionalTime(s.provider_updated_at),
});
