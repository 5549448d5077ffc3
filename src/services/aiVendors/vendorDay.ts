/**
 * One day of an AI vendor's usage in the domain's words, whichever vendor reported it (docs/ai-vendors.md#what-is-read):
 * each pullers' translation ends here, and one writer (vendorUsage.ts) stores it.
 */
import { AI_MEASURES } from '../telemetry/aiTools';
import type { ProviderHttp } from '../../outbound/providerHttp';

/**
 * The figures a vendor's day may carry (the columns of `ai_vendor_days`): those OTLP telemetry adds to (aiTools.ts), and
 * what only the vendors report. Those a vendor does not report stay 0.
 */
export const VENDOR_MEASURES = [...AI_MEASURES, 'suggestions_shown', 'suggestions_accepted', 'lines_suggested', 'chat_requests', 'agent_requests'] as const;

export type VendorMeasure = (typeof VENDOR_MEASURES)[number];

/** One account's day at the vendor. */
export interface VendorAccountDay {
  /** As the vendor names it: a GitHub login (Copilot) or an e-mail (Cursor, Claude Code). */
  account: string;
  /** Whether the vendor counts the account as active that day. */
  active: boolean;
  measures: Partial<Record<VendorMeasure, number>>;
}

/** How a vendor's accounts are matched to members: by the GitHub logins of members' git accounts, or by e-mail. */
export type AccountKind = 'github_login' | 'email';

/** What a puller needs of an app: its opened credential and where to ask. */
export interface OpenedSource {
  appId: string;
  organizationId: string;
  /** The vendor's provider id, as the registry (src/integrations/registry.ts) and the usage rollups' `tool` name it. */
  vendor: string;
  credential: string;
  accountKind: 'organization' | 'enterprise' | null;
  account: string | null;
  baseUrl: string | null;
}

/** A UTC day as `YYYY-MM-DD`. */
export type Day = string;

/** One vendor's day: its accounts, or null when the vendor has no report for it yet. */
export type DayPuller = (source: OpenedSource, day: Day, http: ProviderHttp) => Promise<VendorAccountDay[] | null>;

/** An AI vendor read by the service (docs/ai-vendors.md): its puller and what the domain must know of it. */
export interface VendorPuller {
  pullDay: DayPuller;
  /** How its usage names a person: a GitHub login or an e-mail address. */
  accountKind: AccountKind;
  /** The credential it is read with, as the vendor issues it: said when one is refused. */
  credentialName: string;
  /** Copilot's reports are one GitHub organization's or enterprise's; the others' are their key's whole team. */
  readsGithubAccount: boolean;
}
