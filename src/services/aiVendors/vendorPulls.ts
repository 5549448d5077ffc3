import { Op } from 'sequelize';
import { AiVendorSource, App } from '../../../db/models';
import { DomainError, invalid, notFound } from '../../errors';
import type { ChangeRunner } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import type { SecretBox } from '../../secrets/secretBox';
import type { ProviderCatalog } from '../apps/catalog';
import { checkVendorBaseUrl } from '../apps/vendorSources';
import type { Day, OpenedSource, VendorPuller } from './vendorDay';
import { CredentialRefused, ProviderFailure, ProviderHttp } from '../../outbound/providerHttp';
import { StoredDay, VendorUsageWriter } from './vendorUsage';

/** A pull holds its app this long past its last day stored; a worker that died lets go of it then. */
const LEASE_MS = 10 * 60_000;

export interface PullOutcome {
  app_id: string;
  /** The days stored, each replacing what an earlier pull stored for it. */
  stored: StoredDay[];
  /** The days the vendor has no report for yet (GitHub's arrive within three days). */
  without_report: Day[];
  /** The days the vendor's answer could not be used, with why; the other days are kept. */
  refused: { day: Day; reason: string }[];
  /** Set when the vendor refused the credential: the pull stopped, and the app is failing until a new one is stored. */
  credential_refused: string | null;
  /** Set when the app's base URL may not be called (docs/ai-vendors.md#where-a-pull-goes): nothing was asked. */
  destination_refused: string | null;
}

/**
 * Pulls an AI vendor's app over a range of days (docs/ai-vendors.md#how-a-pull-goes), a day at a time, each day stored
 * in one change (so a pull that dies leaves whole days only). One pull of an app runs at a time across instances:
 * the app's lease in the database is taken first, and renewed after each day.
 */
export class VendorPulls {
  private readonly writer: VendorUsageWriter;

  constructor(
    changes: ChangeRunner,
    /** The registry's providers (src/integrations/registry.ts): each AI vendor's puller. */
    private readonly catalog: ProviderCatalog,
    private readonly secrets: SecretBox,
    private readonly http: ProviderHttp,
    private readonly owner: string = newId('pull'),
  ) {
    this.writer = new VendorUsageWriter(changes);
  }

  async pull(appId: string, days: Day[]): Promise<PullOutcome> {
    const { source, vendor } = await this.openedSource(appId);
    if (!(await this.lease(appId))) throw invalid(`App ${appId} is being pulled by another worker; try again when it is done (at most ${LEASE_MS / 60_000} minutes)`);
    const outcome: PullOutcome = { app_id: appId, stored: [], without_report: [], refused: [], credential_refused: null, destination_refused: null };
    try {
      outcome.destination_refused = await this.refusedBaseUrl(source);
      for (const day of outcome.destination_refused === null ? days : []) {
        try {
          const accounts = await vendor.pullDay(source, day, this.http);
          if (accounts === null) outcome.without_report.push(day);
          else outcome.stored.push(await this.writer.replaceDay(source, day, accounts, vendor.accountKind));
        } catch (err) {
          if (err instanceof CredentialRefused) {
            outcome.credential_refused = err.message;
            break;
          }
          if (!(err instanceof ProviderFailure)) throw err;
          outcome.refused.push({ day, reason: err.message });
        }
        await this.lease(appId);
      }
    } finally {
      await this.finish(appId, outcome);
    }
    return outcome;
  }

  /** The app as its vendor's puller reads it, and that vendor. */
  private async openedSource(appId: string): Promise<{ source: OpenedSource; vendor: VendorPuller }> {
    const app = await App.findByPk(appId, { attributes: ['id', 'organization_id', 'provider', 'is_active'] });
    if (!app) throw notFound(`No app ${appId} (see npm run apps -- list)`);
    const vendor = this.catalog.vendor(app.provider);
    if (!vendor) throw invalid(`App ${appId} is ${app.provider}'s: it sends its data, nothing is pulled from it`);
    if (!app.is_active) throw invalid(`App ${appId} is disabled: enable it first (npm run apps -- enable ${appId})`);
    const source = await AiVendorSource.findByPk(appId);
    if (!source || source.credential === null) throw invalid(`App ${appId} has no credential: store one (npm run apps -- set-secret --app ${appId} --secret-file <file>)`);
    return {
      source: {
        appId,
        organizationId: app.organization_id,
        vendor: app.provider,
        credential: this.secrets.open(source.credential),
        accountKind: source.account_kind,
        account: source.account,
        baseUrl: source.base_url,
      },
      vendor,
    };
  }

  /** Why the app's base URL may not be called now (the allowance withdrawn, its name resolving elsewhere), or null. */
  private async refusedBaseUrl(source: OpenedSource): Promise<string | null> {
    if (source.baseUrl === null) return null;
    try {
      await checkVendorBaseUrl(source.baseUrl, this.http.outbound);
      return null;
    } catch (err) {
      if (err instanceof DomainError) return err.message;
      throw err;
    }
  }

  /** Takes or renews the app's lease; false when another worker holds it. */
  private async lease(appId: string): Promise<boolean> {
    const now = this.http.now();
    const [taken] = await AiVendorSource.update(
      { lease_owner: this.owner, lease_until: new Date(now.getTime() + LEASE_MS) },
      { where: { app_id: appId, [Op.or]: [{ lease_owner: null }, { lease_owner: this.owner }, { lease_until: { [Op.lt]: now } }] } },
    );
    return taken === 1;
  }

  /** What the pull did, kept on the app for `apps list` and the settings page; the lease let go. */
  private async finish(appId: string, outcome: PullOutcome): Promise<void> {
    const before = (await AiVendorSource.findByPk(appId, { attributes: ['pulled_through'] }))?.pulled_through ?? null;
    const through = [before, ...outcome.stored.map((d) => d.day)].reduce<string | null>((last, day) => (day !== null && (last === null || day > last) ? day : last), null);
    await AiVendorSource.update(
      {
        pulled_at: this.http.now(),
        pulled_through: through,
        pull_result: summary(outcome).slice(0, 500),
        failing: outcome.credential_refused !== null,
        lease_owner: null,
        lease_until: null,
        updated_at: this.http.now(),
      },
      { where: { app_id: appId, lease_owner: this.owner } },
    );
  }
}

/** The pull in a sentence. */
export function summary(outcome: PullOutcome): string {
  if (outcome.credential_refused) return outcome.credential_refused;
  if (outcome.destination_refused) return outcome.destination_refused;
  const parts = [`${outcome.stored.length} day${outcome.stored.length === 1 ? '' : 's'} stored`];
  if (outcome.without_report.length) parts.push(`${outcome.without_report.length} without a report yet`);
  if (outcome.refused.length) parts.push(`${outcome.refused.length} refused (${outcome.refused[0].day}: ${outcome.refused[0].reason})`);
  return `${parts.join(', ')}.`;
}

/** The UTC days from `since` to `until`, both included. */
export function daysBetween(since: Day, until: Day): Day[] {
  const days: Day[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
