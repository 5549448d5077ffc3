/**
 * Incidents and deployments in the domain's words, whichever app brought them (docs/incidents.md): the ingest
 * transports translate PagerDuty, Opsgenie and the deployments API into these, and one writer (operationsWriter.ts)
 * stores them with what DORA reads.
 */
import type { DeploymentInput, IncidentInput } from '../git/activity';
import type { IncidentNote } from '../git/incidents/incidents';

/** Where an app's event belongs, as the app names it. */
export interface BoardRef {
  /**
   * The boards the event names, most specific first (a PagerDuty service; an Opsgenie alert's team, then its tags;
   * the repository a CI job gave). The first one mapped to a repository places it; else it is kept under the first.
   */
  candidates: string[];
  /** The names may name a repository themselves, by id or full name (the deployments API's `repository`). */
  namesRepository: boolean;
}

export type OperationEvent =
  | { kind: 'incident'; board: BoardRef; incident: IncidentInput }
  /** A later word on a stored incident: the commits a note names (`root cause: <sha>`, `fixed by: <sha>`). */
  | { kind: 'incident_note'; externalId: string; note: IncidentNote }
  | { kind: 'deployment'; board: BoardRef; deployment: DeploymentInput };

/** The app a delivery came to. */
export interface OperationSource {
  appId: string;
  organizationId: string;
}

export interface OperationDelivery {
  source: OperationSource;
  /** The provider's delivery id, so that a redelivery changes nothing; null where the rows themselves are keyed by the caller's id. */
  id: string | null;
  event: string;
}
