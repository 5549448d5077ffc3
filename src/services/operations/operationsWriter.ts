import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { GroupCommit } from '../../persistence/changes/groupCommit';
import { firstDeliveries } from '../apps/appDeliveries';
import { recordDelivery } from '../apps/connectionStates';
import { recordDeployment } from '../git/deployments/deployments';
import { IncidentRecords } from '../git/incidents/incidents';
import type { Placement } from '../git/placement';
import type { Applied } from '../git/recordIfNewer';
import { placedBoard } from './boardPlacement';
import type { BoardRef, OperationDelivery, OperationEvent, OperationSource } from './operationInput';

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

type Received = { delivery: OperationDelivery; events: OperationEvent[] };

/**
 * Stores incidents and deployments from apps (docs/incidents.md) on the write path of docs/architecture.md#writers,
 * with what DORA reads beside the rows (shippedChanges.ts, leadTimes.ts), through the git writers' own
 * IncidentRecords and recordDeployment, so that an incident from PagerDuty counts exactly as an issue labelled
 * `incident` does. The deliveries of one app that arrive while one of its changes commits are stored together in the
 * next, in the order they came (group commit, as the task writer's), each answered once that change has committed.
 * A delivery with a provider id is recorded, so that a redelivery changes nothing; the rows are unique per app and
 * provider id, so a call repeated with the caller's id (the deployments API) finds its row, and a state older than
 * the stored one changes nothing.
 */
export class OperationsWriter {
  private readonly deliveries: GroupCommit<Received, OperationOutcome>;

  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {
    this.deliveries = new GroupCommit((_appId, received) => this.changes.run((change) => this.receiveAll(change, received)));
  }

  receive(delivery: OperationDelivery, events: OperationEvent[]): Promise<OperationOutcome> {
    return this.deliveries.add(delivery.source.appId, { delivery, events });
  }

  /**
   * Incidents and deployments read from the provider's history within a change another service runs
   * (src/services/history/historyPages.ts), applied as a delivery's are.
   */
  async importInto(change: Change, source: OperationSource, events: OperationEvent[]): Promise<OperationResult[]> {
    const group: Group = { change, incidents: await IncidentRecords.load(change, { app_id: source.appId }, incidentIdsOf(events)), boards: new Map() };
    const items: OperationResult[] = [];
    for (const event of events) items.push(await this.apply(group, source, event));
    await group.incidents.save();
    return items;
  }

  /**
   * Deliveries of one app, each once: those received before (or earlier in the group) are duplicates. The group's
   * incidents are read in one statement and written together at the end, after its deployments.
   */
  private async receiveAll(change: Change, received: Received[]): Promise<OperationOutcome[]> {
    const fresh = await this.firstSights(change, received);
    const events = received.filter((r) => fresh.has(r)).flatMap((r) => r.events);
    const group: Group = { change, incidents: await IncidentRecords.load(change, { app_id: received[0].delivery.source.appId }, incidentIdsOf(events)), boards: new Map() };
    const outcomes: OperationOutcome[] = [];
    for (const r of received) {
      if (!fresh.has(r)) {
        outcomes.push({ result: 'duplicate', items: [] });
        continue;
      }
      const items: OperationResult[] = [];
      for (const event of r.events) items.push(await this.apply(group, r.delivery.source, event));
      outcomes.push({ result: 'applied', items });
    }
    await group.incidents.save();
    const last = received.filter((r) => fresh.has(r)).at(-1);
    if (last) await recordDelivery(change.transaction, { connectionId: last.delivery.source.appId, organizationId: last.delivery.source.organizationId }, last.delivery.event, this.now());
    return outcomes;
  }

  /** The deliveries seen for the first time, their ids recorded; those without a provider id always are. */
  private async firstSights(change: Change, received: Received[]): Promise<Set<Received>> {
    const named = received.flatMap((r) => (r.delivery.id === null ? [] : [{ id: r.delivery.id, event: r.delivery.event, received: r }]));
    const firstSeen = await firstDeliveries(change.transaction, received[0].delivery.source.appId, named, this.now());
    return new Set([...received.filter((r) => r.delivery.id === null), ...[...firstSeen].map((d) => d.received)]);
  }

  private async apply(group: Group, source: OperationSource, event: OperationEvent): Promise<OperationResult> {
    if (event.kind === 'incident_note') {
      const noted = group.incidents.note(event.externalId, event.note);
      return { kind: 'incident', external_id: event.externalId, result: noted?.applied ?? 'unknown', repository_id: noted?.repositoryId ?? null };
    }
    const { boardKey, repository, repositories } = await placed(group, source, event.board);
    const placement: Placement = { organizationId: source.organizationId, repository, repositories, source: { appId: source.appId, boardKey } };
    const repositoryId = repository?.id ?? null;
    if (event.kind === 'incident') {
      return { kind: 'incident', external_id: event.incident.externalId, result: group.incidents.record(placement, event.incident), repository_id: repositoryId };
    }
    return { kind: 'deployment', external_id: event.deployment.externalId, result: await recordDeployment(group.change, placement, event.deployment), repository_id: repositoryId };
  }
}

/** The incidents the events name, read at once. */
const incidentIdsOf = (events: OperationEvent[]) => events.flatMap((e) => (e.kind === 'incident' ? [e.incident.externalId] : e.kind === 'incident_note' ? [e.externalId] : []));

/** What one change of a group holds while its deliveries are applied. */
interface Group {
  change: Change;
  incidents: IncidentRecords;
  /** Boards repeat within a group (one service pages many incidents): each is placed once per change. */
  boards: Map<string, ReturnType<typeof placedBoard>>;
}

function placed(group: Group, source: OperationSource, board: BoardRef): ReturnType<typeof placedBoard> {
  const key = JSON.stringify([board.candidates, board.namesRepository]);
  let placing = group.boards.get(key);
  if (!placing) group.boards.set(key, (placing = placedBoard(group.change.transaction, source, board)));
  return placing;
}
