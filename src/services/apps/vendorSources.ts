import { QueryTypes } from 'sequelize';
import { AiVendorSource, App } from '../../../db/models';
import { invalid } from '../../errors';
import { checkDestination, OutboundPolicy, RefusedDestination } from '../../outbound/outboundFetch';
import type { Change } from '../../persistence/changes/change';
import type { SecretBox } from '../../secrets/secretBox';
import { APP_PROVIDERS, AppProvider, isAppProvider } from './providers';

/** The AI vendors whose usage the service reads from their APIs (docs/ai-vendors.md). */
export type AiVendor = { [P in AppProvider]: (typeof APP_PROVIDERS)[P]['category'] extends 'ai' ? P : never }[AppProvider];

export const isAiVendor = (provider: string): provider is AiVendor => isAppProvider(provider) && APP_PROVIDERS[provider].category === 'ai';

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

const credentialName: Record<AiVendor, string> = {
  copilot:
    'a GitHub token that may read the Copilot usage metrics (a fine-grained token or GitHub App token with "Organization Copilot metrics: read", or a classic token with read:org; for an enterprise, manage_billing:copilot or read:enterprise)',
  cursor: 'a Cursor Admin API key, made by a team admin in the Cursor dashboard',
  claude_code: 'an Anthropic Admin API key (sk-ant-admin…), made by an organization admin in the Claude Console',
};

/** The access as stored, or a refusal that says what to fix. */
function checked(provider: AiVendor, access: VendorAccess) {
  if (!CREDENTIAL.test(access.credential)) throw invalid(`The credential must be 8 to 1000 printable characters without spaces: ${credentialName[provider]}`);
  if (provider === 'copilot' && !access.account) throw invalid('A GitHub Copilot app reads one GitHub organization’s or enterprise’s reports: name it (--github-org <slug> or --github-enterprise <slug>)');
  if (provider !== 'copilot' && access.account) throw invalid(`${APP_PROVIDERS[provider].name} reads the usage of the whole team its key belongs to: it takes no GitHub organization`);
  if (access.account && !GITHUB_SLUG.test(access.account.slug)) throw invalid(`'${access.account.slug}' is not a GitHub ${access.account.kind} slug (letters, digits and single hyphens, at most 39 characters)`);
  return { account_kind: access.account?.kind ?? null, account: access.account?.slug ?? null, base_url: access.baseUrl === undefined ? null : apiRoot(access.baseUrl) };
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
export async function connectVendorSource(change: Change, app: App, provider: AiVendor, access: VendorAccess, secrets: SecretBox, now: Date): Promise<AiVendorSource> {
  const source = await AiVendorSource.create(
    { app_id: app.id, organization_id: app.organization_id, credential: secrets.seal(access.credential), ...checked(provider, access), updated_at: now },
    { transaction: change.transaction },
  );
  change.wrote('ai_vendor_sources');
  return source;
}

/** A new credential for the app (the last one expired or was revoked): the app is no longer failing. */
export async function replaceVendorCredential(change: Change, app: App, provider: AiVendor, credential: string, secrets: SecretBox, now: Date): Promise<AiVendorSource> {
  if (!CREDENTIAL.test(credential)) throw invalid(`The credential must be 8 to 1000 printable characters without spaces: ${credentialName[provider]}`);
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
