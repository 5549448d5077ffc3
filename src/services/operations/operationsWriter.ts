import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { recordDeployment } from '../git/deployments/deployments';
import { recordIncident, recordIncidentNote } from '../git/incidents/incidents';
import type { Placement } from '../git/placement';
import type { Applied } from '../git/recordIfNewer';
import { placedBoard } from './boardPlacement';
import type { OperationDelivery, OperationEvent, OperationSource } from './operationInput';

export interface OperationResult {
  kind: 'incident' | 'deployment';
  external_id: string;
  /** `unknown`: a later word on an incident the app never brought (nothing is made of it). */
  result: Applied | 'unknown';
  /** Where it is counted: its repository, or null for its organization only (its board not mapped yet). */
  repository_id: string | null;
}

export interface OperationOutcome {
  result: 'applied' | 'duplicate';
  items: OperationResult[];
}

const DELIVERY_COLUMNS = ['app_id', 'delivery_id', 'event', 'received_at'] as const;

/**
 * Stores incidents and deployments from apps (docs/incidents.md) on the write path of docs/architecture.md#writers:
 * each delivery is one change with its events and with what DORA reads beside the rows (shippedChanges.ts,
 * leadTimes.ts), through the git writers' own recordIncident and recordDeployment, so that an incident from
 * PagerDuty counts exactly as an issue labelled `incident` does. A delivery with a provider id is recorded, so that
 * a redelivery changes nothing; the rows are unique per app and provider id, so a call repeated with the caller's
 * id (the deployments API) finds its row, and a state older than the stored one changes nothing.
 */
export class OperationsWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  receive(delivery: OperationDelivery, events: OperationEvent[]): Promise<OperationOutcome> {
    return this.changes.run(async (change) => {
      if (delivery.id !== null && !(await this.firstSight(change, delivery))) return { result: 'duplicate', items: [] };
      const items: OperationResult[] = [];
      for (const event of events) items.push(await this.apply(change, delivery.source, event));
      return { result: 'applied', items };
    });
  }

  /** Records the delivery's id; false when it was recorded before. */
  private async firstSight(change: Change, delivery: OperationDelivery): Promise<boolean> {
    const sql = new ChangeSql(change.transaction);
    const key = { appId: delivery.source.appId, id: delivery.id };
    if ((await sql.select('SELECT delivery_id FROM ingest_deliveries WHERE app_id = :appId AND delivery_id = :id', key)).length) return false;
    await sql.insert('ingest_deliveries', DELIVERY_COLUMNS, [{ app_id: key.appId, delivery_id: key.id, event: delivery.event, received_at: this.now() }]);
    return true;
  }

  private async apply(change: Change, source: OperationSource, event: OperationEvent): Promise<OperationResult> {
    if (event.kind === 'incident_note') {
      const noted = await recordIncidentNote(change, source.appId, event.externalId, event.note);
      return { kind: 'incident', external_id: event.externalId, result: noted?.applied ?? 'unknown', repository_id: noted?.repositoryId ?? null };
    }
    const { boardKey, repository } = await placedBoard(change.transaction, source, event.board);
    const placement: Placement = { organizationId: source.organizationId, repository, source: { appId: source.appId, boardKey } };
    const repositoryId = repository?.id ?? null;
    if (event.kind === 'incident') {
      return { kind: 'incident', external_id: event.incident.externalId, result: await recordIncident(change, placement, event.incident), repository_id: repositoryId };
    }
    return { kind: 'deployment', external_id: event.deployment.externalId, result: await recordDeployment(change, placement, event.deployment), repository_id: repositoryId };
  }
}
