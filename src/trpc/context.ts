import type { Principal } from '../access/principal';
import type { ListingService } from '../services/query/listing';
import type { MetricsService } from '../services/metrics';

/** Per-request context shared by the REST façade and /trpc; built by the request gate. */
export interface RequestContext {
  principal?: Principal;
  /** A 401/429 (or a failure to authenticate at all) from the gate, raised by the base procedure so each transport renders it. */
  gateError?: unknown;
  /** Mistakes in the raw query string that the parsed input cannot show (REST only): empty or repeated parameters. */
  queryProblems: string[];
  services: { listing: ListingService; metrics: MetricsService };
}

export type AuthedContext = RequestContext & { principal: Principal };
