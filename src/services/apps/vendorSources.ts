import { QueryTypes } from 'sequelize';
import { AiVendorSource, App } from '../../../db/models';
import { invalid } from '../../errors';
import { checkDestination, OutboundPolicy, RefusedDestination } from '../../outbound/outboundFetch';
import type { Change } from '../../persistence/changes/change';
import type { SecretBox } from '../../secrets/secretBox';
import type { VendorPuller } from '../aiVendors/vendorDay';
import type { ProviderCatalog } from './catalog';

/** The app's vendor as the catalog knows it (docs/ai-vendors.md); an app of a provider that sends its data is refused. */
function vendorOf(catalog: ProviderCatalog, app: Pick<App, 'id' | 'provider'>): VendorPuller {
  const vendor = catalog.vendor(app.provider);
  if (!vendor) throw invalid(`App ${app.id} (${app.provider}) is not read from a vendor's API`);
  return vendor;
}

/** How the service reaches an AI vendor's API for an app, as the CLI and the settings page take it. */
export interface VendorAccess {
  /** The vendor's key or token, as issued: a GitHub token, a Cursor Admin API key, an Anthropic Admin API key. */
  credential: string;
  /** Copilot only: the GitHub organization or enterprise whose reports are read. */
  account?: { kind: 'organization' | 'enterprise'; slug: string };
  /** The API's root when not the vendor's public one: GitHub Enterprise Server's `https://host/api/v3`, a test's fake. */
  baseUrl?: string;
}

/** What a vendor's key or token looks like: printable, no spaces (each vendor's are 40 to 120 characters). */
const CREDENTIAL = /^[\x21-\x7e]{8,1000}$/;
/** GitHub's organization and enterprise slugs: letters, digits and single hyphens, at most 39 characters. */
const GITHUB_SLUG = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** The access as stored, or a refusal that says what to fix. */
function checked(name: string, vendor: VendorPuller, access: VendorAccess) {
  checkCredential(vendor, access.credential);
  if (vendor.readsGithubAccount && !access.account) throw invalid(`A ${name} app reads one GitHub organization’s or enterprise’s reports: name it (--github-org <slug> or --github-enterprise <slug>)`);
  if (!vendor.readsGithubAccount && access.account) throw invalid(`${name} reads the usage of the whole team its key belongs to: it takes no GitHub organization`);
  if (access.account && !GITHUB_SLUG.test(access.account.slug)) throw invalid(`'${access.account.slug}' is not a GitHub ${access.account.kind} slug (letters, digits and single hyphens, at most 39 characters)`);
  return { account_kind: access.account?.kind ?? null, account: access.account?.slug ?? null, base_url: access.baseUrl === undefined ? null : apiRoot(access.baseUrl) };
}

/** A credential in the form every vendor's takes, or a refusal naming the one the vendor issues. */
function checkCredential(vendor: VendorPuller, credential: string): void {
  if (!CREDENTIAL.test(credential)) throw invalid(`The credential must be 8 to 1000 printable characters without spaces: ${vendor.credentialName}`);
}

/** A base URL as requests are made from it: http or https, no credentials, query or fragment, no trailing slash. */
export function apiRoot(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`The base URL '${text}' is not an absolute URL, e.g. https://github.example.com/api/v3`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`The base URL must be http or https, not ${url.protocol}`);
  if (url.username || url.password || url.search || url.hash) throw invalid('The base URL takes no user, password, query or fragment: the credential is sent in a header');
  const root = url.toString().replace(/\/+$/, '');
  if (root.length > 500) throw invalid('The base URL has at most 500 characters');
  return root;
}

/**
 * A base URL the service may call (docs/ai-vendors.md#where-a-pull-goes): apiRoot's form, then https and every address its
 * host resolves to as the address guard judges them (plain http and private addresses only under the operator's
 * allowance). Checked when the app is made, and again before each pull.
 */
export async function checkVendorBaseUrl(text: string, policy: Pick<OutboundPolicy, 'allowPrivate'>): Promise<void> {
  const root = apiRoot(text);
  try {
    await checkDestination(root, policy);
  } catch (err) {
    if (err instanceof RefusedDestination) throw invalid(`The base URL ${root} is refused: ${err.message}`);
    throw err;
  }
}

/** The new AI vendor's app's source, in the change that makes the app. */
export async function connectVendorSource(change: Change, app: App, catalog: ProviderCatalog, access: VendorAccess, secrets: SecretBox, now: Date): Promise<AiVendorSource> {
  const stored = checked(catalog.nameOf(app.provider), vendorOf(catalog, app), access);
  const source = await AiVendorSource.create(
    { app_id: app.id, organization_id: app.organization_id, credential: secrets.seal(access.credential), ...stored, updated_at: now },
    { transaction: change.transaction },
  );
  change.wrote('ai_vendor_sources');
  return source;
}

/** A new credential for the app (the last one expired or was revoked): the app is no longer failing. */
export async function replaceVendorCredential(change: Change, app: App, catalog: ProviderCatalog, credential: string, secrets: SecretBox, now: Date): Promise<AiVendorSource> {
  checkCredential(vendorOf(catalog, app), credential);
  const source = await AiVendorSource.findByPk(app.id, { transaction: change.transaction, lock: change.transaction.LOCK.UPDATE });
  if (!source) throw invalid(`App ${app.id} has no vendor source`);
  await source.update({ credential: secrets.seal(credential), failing: false, pull_result: 'The credential was replaced; the next pull uses it.', updated_at: now }, { transaction: change.transaction });
  change.wrote('ai_vendor_sources');
  return source;
}

/** The days an app holds usage of: how many, the first and the last. */
export interface HeldDays {
  days: number;
  first: string | null;
  last: string | null;
}

const NONE_HELD: HeldDays = { days: 0, first: null, last: null };

/** The days each app holds, in one statement over the apps' own rows (the key's leading columns). */
export async function heldDays(appIds: string[]): Promise<Map<string, HeldDays>> {
  if (appIds.length === 0) return new Map();
  const rows = await AiVendorSource.sequelize!.query<{ app_id: string; days: number | string; first: Date | string; last: Date | string }>(
    'SELECT app_id, COUNT(DISTINCT day) AS days, MIN(day) AS first, MAX(day) AS last FROM ai_vendor_days WHERE app_id IN (:appIds) GROUP BY app_id',
    { replacements: { appIds }, type: QueryTypes.SELECT },
  );
  const day = (value: Date | string) => (value instanceof Date ? value.toISOString() : String(value)).slice(0, 10);
  return new Map(rows.map((r) => [r.app_id, { days: Number(r.days), first: day(r.first), last: day(r.last) }]));
}

/** What lists show of how an app is read, and what it holds: never the credential. */
export function vendorSourceView(source: AiVendorSource, held: HeldDays = NONE_HELD) {
  return {
    account: source.account === null ? null : { kind: source.account_kind, slug: source.account },
    base_url: source.base_url,
    pulled_at: source.pulled_at?.toISOString() ?? null,
    pulled_through: source.pulled_through ?? null,
    pull_result: source.pull_result ?? null,
    failing: Boolean(source.failing),
    held,
  };
}

export type VendorSourceView = ReturnType<typeof vendorSourceView>;
