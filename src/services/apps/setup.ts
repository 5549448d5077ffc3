import { QueryTypes } from 'sequelize';
import { AiVendorSource, App, AppBoard, ConnectionCredential, ConnectionState, GitApp, HistoryImport, HistoryOutcomeKind, OtlpToken, ScimToken } from '../../../db/models';
import type { ProviderCatalog } from './catalog';
import { isRefusalReason, REFUSAL_REASONS } from './connectionStates';
import { APP_LINKS, GIT_APP_LINKS, LinkTable } from '../people/linkTables';

/** A source that has not delivered for this long while another of its organization has is flagged quiet. */
export const QUIET_AFTER_MS = 24 * 3_600_000;

export type SourceState = 'waiting' | 'receiving' | 'failing';

/** One source of an organization's data as the setup view shows it (docs/settings.md#setup). */
export interface SetupSource {
  id: string;
  kind: 'git_app' | 'app' | 'scim_token' | 'otlp_token';
  name: string;
  /** The registry's provider id; null for SCIM and telemetry tokens. */
  provider: string | null;
  provider_name: string;
  /** How its data comes: the provider's webhook, the service's pull of a vendor's API, a clone's import, or a token's requests. */
  receives: 'webhook' | 'pull' | 'import' | 'token';
  active: boolean;
  state: SourceState;
  /** No delivery for QUIET_AFTER_MS while another webhook source of the organization had one. */
  quiet: boolean;
  last_delivery: { at: string; event: string } | null;
  last_refusal: { at: string; reason: string } | null;
  /** Accounts with activity on it and no member linked (`apps|gitapps unlinked`); null for a source without accounts. */
  unlinked_accounts: number | null;
  /** Its history read from the provider's API (docs/history.md); null for a provider whose history is not read. */
  history: SourceHistory | null;
  /** What to do next, in a sentence; null when nothing is. */
  next_step: string | null;
}

/** A connection's history import as the setup view shows it: whether it can be read, and its last run. */
export interface SourceHistory {
  /** A credential to read the provider's API is stored (`set-credential`). */
  credential: boolean;
  /** The last run, by `npm run import` or the daily catch-up; null before the first. */
  last_import: {
    started_at: string;
    finished_at: string | null;
    /** `running` while a run holds it (or until a killed run's lease lapses); `stopped` when asked to (Ctrl-C). */
    outcome: HistoryOutcomeKind;
    read: number;
    /** What it stored that the webhooks had not brought. */
    found: number;
    message: string | null;
  } | null;
}

export interface SetupView {
  organization_id: string;
  checked_at: string;
  counts: Record<SourceState | 'quiet', number>;
  sources: SetupSource[];
}

/** What a source's row says before the organization-wide flag and the next step are added. */
type Sourced = Omit<SetupSource, 'quiet' | 'next_step'> & { hasSecret: boolean; boards: number; lastDeliveryMs: number | null };

/**
 * The setup view of an organization (docs/settings.md#setup): each git app, app, SCIM token and OTLP token with its
 * state, its last delivery and last refusal, and the next step, in a fixed number of reads (one per table) whatever
 * the number of sources. `now` is the service's clock.
 */
export async function setupView(organizationId: string, providers: ProviderCatalog, publicBase: string, now: Date): Promise<SetupView> {
  const where = { organization_id: organizationId };
  const byAge = { order: [['created_at', 'ASC'], ['id', 'ASC']] as [string, string][] };
  const [gitApps, apps, vendors, states, scimTokens, otlpTokens, credentials, imports] = await Promise.all([
    GitApp.findAll({ where, ...byAge }),
    App.findAll({ where, ...byAge }),
    AiVendorSource.findAll({ where, attributes: ['app_id', 'pulled_at', 'pull_result', 'failing'] }),
    ConnectionState.findAll({ where }),
    ScimToken.findAll({ where: { ...where, is_active: true }, ...byAge }),
    OtlpToken.findAll({ where: { ...where, is_active: true }, ...byAge }),
    ConnectionCredential.findAll({ where, attributes: ['connection_id'] }),
    HistoryImport.findAll({ where }),
  ]);
  const [boards, unlinked] = await Promise.all([boardsMapped(apps.map((a) => a.id)), unlinkedAccounts(organizationId)]);
  const stateOf = new Map(states.map((s) => [s.connection_id, s]));
  const vendorOf = new Map(vendors.map((v) => [v.app_id, v]));
  const withCredential = new Set(credentials.map((c) => c.connection_id));
  const importOf = new Map(imports.map((i) => [i.connection_id, i]));
  const historyOf = (row: GitApp | App): SourceHistory | null =>
    providers.find(row.provider)?.history ? { credential: withCredential.has(row.id), last_import: lastImport(importOf.get(row.id)) } : null;

  const sourced: Sourced[] = [
    ...gitApps.map((g) => connectionSource('git_app', g, providers, stateOf.get(g.id), 0, unlinked.get(g.id) ?? 0, historyOf(g))),
    ...apps.map((a) => {
      const vendor = vendorOf.get(a.id);
      return providers.vendor(a.provider) ? vendorSource(a, providers, vendor) : connectionSource('app', a, providers, stateOf.get(a.id), boards.get(a.id) ?? 0, unlinked.get(a.id) ?? 0, historyOf(a));
    }),
    ...scimTokens.map((t) => tokenSource('scim_token', t, 'SCIM')),
    ...otlpTokens.map((t) => tokenSource('otlp_token', t, 'Telemetry (OTLP)')),
  ];
  const since = now.getTime() - QUIET_AFTER_MS;
  const webhooks = sourced.filter((s) => s.receives === 'webhook' && s.active);
  const sources = sourced.map(({ hasSecret, boards: mapped, lastDeliveryMs, ...s }) => {
    const quiet =
      s.receives === 'webhook' && s.active && lastDeliveryMs !== null && lastDeliveryMs < since && webhooks.some((o) => o.id !== s.id && o.lastDeliveryMs !== null && o.lastDeliveryMs >= since);
    const source = { ...s, quiet, next_step: null };
    return { ...source, next_step: nextStep(source, { hasSecret, boards: mapped }, providers, publicBase) };
  });
  const count = (state: SourceState) => sources.filter((s) => s.state === state).length;
  return {
    organization_id: organizationId,
    checked_at: now.toISOString(),
    counts: { waiting: count('waiting'), receiving: count('receiving'), failing: count('failing'), quiet: sources.filter((s) => s.quiet).length },
    sources,
  };
}

/**
 * How many boards each app has mapped, to a team or to one or more repositories: one grouped read of the apps' own
 * rows (the keys' leading column).
 */
async function boardsMapped(appIds: string[]): Promise<Map<string, number>> {
  if (appIds.length === 0) return new Map();
  const boards = 'SELECT app_id, board_key FROM app_boards WHERE app_id IN (:appIds) UNION SELECT app_id, board_key FROM board_repositories WHERE app_id IN (:appIds)';
  const rows = await AppBoard.sequelize!.query<{ app_id: string; boards: number | string }>(`SELECT app_id, COUNT(*) AS boards FROM (${boards}) AS b GROUP BY app_id`, {
    replacements: { appIds },
    type: QueryTypes.SELECT,
  });
  return new Map(rows.map((r) => [r.app_id, Number(r.boards)]));
}

/**
 * How many accounts each connection of the organization has activity under and no member linked (as `apps|gitapps
 * unlinked` count them, docs/trackers.md#accounts): one grouped read of the organization's rows.
 */
async function unlinkedAccounts(organizationId: string): Promise<Map<string, number>> {
  const linked = (links: LinkTable) => `EXISTS (SELECT 1 FROM ${links.table} l WHERE l.${links.connectionColumn} = u.connection_id AND l.${links.accountColumn} = u.account)`;
  const rows = await AppBoard.sequelize!.query<{ connection_id: string; unlinked: number | string }>(
    `SELECT u.connection_id, COUNT(DISTINCT u.account) AS unlinked FROM unmatched_accounts u
      WHERE u.organization_id = :organizationId AND NOT ${linked(APP_LINKS)} AND NOT ${linked(GIT_APP_LINKS)} GROUP BY u.connection_id`,
    { replacements: { organizationId }, type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [r.connection_id, Number(r.unlinked)]));
}

/** A connection's last history run, as stored (historyLeases.ts). */
function lastImport(run: HistoryImport | undefined): SourceHistory['last_import'] {
  if (!run?.started_at || !run.outcome) return null;
  return {
    started_at: run.started_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    outcome: run.outcome,
    read: run.items_read,
    found: run.items_found,
    message: run.message,
  };
}

/** A git app or an app the provider sends to (or a clone's git app, which only imports). */
function connectionSource(
  kind: 'git_app' | 'app',
  row: GitApp | App,
  providers: ProviderCatalog,
  state: ConnectionState | undefined,
  boards: number,
  unlinked: number,
  history: SourceHistory | null,
): Sourced {
  const delivered = state?.last_delivery_at ?? null;
  const refused = state?.last_refusal_at ?? null;
  const reason = state?.last_refusal ?? null;
  const failing = refused !== null && (delivered === null || refused > delivered);
  return {
    id: row.id,
    kind,
    name: row.name,
    provider: row.provider,
    provider_name: providers.nameOf(row.provider),
    receives: providers.pushes(row.provider) ? 'webhook' : 'import',
    active: Boolean(row.is_active),
    state: failing ? 'failing' : delivered ? 'receiving' : 'waiting',
    last_delivery: delivered && { at: delivered.toISOString(), event: state?.last_event ?? '' },
    last_refusal: refused && { at: refused.toISOString(), reason: isRefusalReason(reason) ? REFUSAL_REASONS[reason] : 'refused' },
    unlinked_accounts: unlinked,
    history,
    hasSecret: row.webhook_secret !== null,
    boards,
    lastDeliveryMs: delivered?.getTime() ?? null,
  };
}

/** An AI vendor's app: its last pull is its delivery, a refused credential its refusal (docs/ai-vendors.md). */
function vendorSource(app: App, providers: ProviderCatalog, vendor: AiVendorSource | undefined): Sourced {
  const pulled = vendor?.pulled_at ?? null;
  const failing = Boolean(vendor?.failing);
  return {
    id: app.id,
    kind: 'app',
    name: app.name,
    provider: app.provider,
    provider_name: providers.nameOf(app.provider),
    receives: 'pull',
    active: Boolean(app.is_active),
    state: failing ? 'failing' : pulled ? 'receiving' : 'waiting',
    last_delivery: pulled && !failing ? { at: pulled.toISOString(), event: 'pull' } : null,
    last_refusal: pulled && failing ? { at: pulled.toISOString(), reason: vendor?.pull_result ?? 'the vendor refused the credential' } : null,
    unlinked_accounts: null,
    history: null,
    hasSecret: true,
    boards: 0,
    lastDeliveryMs: null,
  };
}

/** A SCIM or OTLP token: used (its last request) or not yet. Refusals of a token are not the token's: no one owns a wrong one. */
function tokenSource(kind: 'scim_token' | 'otlp_token', token: ScimToken | OtlpToken, providerName: string): Sourced {
  const used = token.last_used_at;
  return {
    id: token.id,
    kind,
    name: token.name,
    provider: null,
    provider_name: providerName,
    receives: 'token',
    active: true,
    state: used ? 'receiving' : 'waiting',
    last_delivery: used && { at: used.toISOString(), event: 'request' },
    last_refusal: null,
    unlinked_accounts: null,
    history: null,
    hasSecret: true,
    boards: 0,
    lastDeliveryMs: null,
  };
}

/** What an admin does next about a source, the first that applies: turn it on, fix what refuses it, connect it, map it. */
function nextStep(source: Omit<SetupSource, 'next_step'>, has: { hasSecret: boolean; boards: number }, providers: ProviderCatalog, publicBase: string): string | null {
  const { id, name, provider_name: at } = source;
  const cli = source.kind === 'git_app' ? 'gitapps' : 'apps';
  if (!source.active) return source.kind === 'app' ? `Enable ${name} (Apps: Enable, or npm run apps -- enable ${id}): its deliveries are refused until then.` : `${name} is inactive: its deliveries are refused.`;
  if (source.receives === 'webhook' && !has.hasSecret)
    return source.kind === 'app'
      ? `Give it a webhook secret: make one (Rotate secret, or npm run apps -- rotate-secret ${id}) and set it in ${at}’s webhook settings, or store the one ${at} made (Use the provider’s secret, or npm run apps -- set-secret --app ${id} --secret-file <file>).`
      : `Make its webhook secret (Rotate secret, or npm run gitapps -- rotate-secret ${id}), then set it in ${at}’s webhook settings.`;
  if (source.state === 'failing') return fixFor(source, at, cli);
  if (source.history?.last_import?.outcome === 'refused')
    return `Replace the credential its history is read with (npm run ${cli} -- set-credential ${source.kind === 'git_app' ? '--git-app' : '--app'} ${id} --token-file <file>): ${at} refused it.`;
  if (source.state === 'waiting') return connectFor(source, providers, publicBase);
  if (source.quiet) return `Nothing from ${at} for a day while other sources delivered: check that the webhook still exists and is active in ${at}’s settings, and its recent deliveries there.`;
  if (source.kind === 'app' && source.receives === 'webhook' && has.boards === 0 && mapsBoards(source, providers))
    return `Map its boards (Apps: Mappings, or npm run apps -- map --app ${id} --board <key> --team <team id>): what arrives for an unmapped board counts for the organization only.`;
  const unlinked = source.unlinked_accounts ?? 0;
  if (unlinked > 0) {
    const flag = source.kind === 'git_app' ? '--git-app' : '--app';
    return `Link people: ${unlinked} account${unlinked === 1 ? '' : 's'} with activity and no member; link each to its member in People to link (or npm run ${cli} -- unlinked ${flag} ${id}, then npm run ${cli} -- link-users ${flag} ${id} --csv <file>).`;
  }
  return historyStep(source, cli);
}

/** Reading a source's history: a credential first, then the first import; nothing once it has run (the daily catch-up keeps it). */
function historyStep(source: Omit<SetupSource, 'next_step'>, cli: string): string | null {
  const { history, id, provider } = source;
  if (!history || history.last_import) return null;
  const flag = source.kind === 'git_app' ? '--git-app' : '--app';
  if (!history.credential)
    return `Read its last year from ${source.provider_name}’s API: store a read-only credential (npm run ${cli} -- set-credential ${flag} ${id} --token-file <file>; docs/history.md says which), then run npm run import -- ${provider} ${flag} ${id}.`;
  return `Read its last year from ${source.provider_name}’s API now with npm run import -- ${provider} ${flag} ${id} (the daily catch-up reads it within a day otherwise).`;
}

/** Whether what a provider brings is placed by boards (trackers, chat, incident tools, deployments), rather than by repository. */
const mapsBoards = (source: Omit<SetupSource, 'next_step'>, providers: ProviderCatalog) => {
  const category = source.provider ? providers.find(source.provider)?.category : undefined;
  return category !== undefined && category !== 'git' && category !== 'ai';
};

function fixFor(source: Omit<SetupSource, 'next_step'>, at: string, cli: string): string {
  const { id } = source;
  if (source.receives === 'pull') return `Replace the credential (Apps: Replace credential, or npm run apps -- set-credential --app ${id} --token-file <file>): the vendor refused it.`;
  const reason = source.last_refusal?.reason;
  if (reason === REFUSAL_REASONS.signature || reason === REFUSAL_REASONS.token)
    return `Set the secret in ${at}’s webhook settings to this connection’s; if it is lost, rotate it (Rotate secret, or npm run ${cli} -- rotate-secret ${id}) and paste the new one.`;
  if (reason === REFUSAL_REASONS.inactive) return `Enable it: its deliveries are refused while it is disabled.`;
  if (reason === REFUSAL_REASONS.rate_limited) return `${at} sends more than INGEST_RATE_LIMIT_PER_MINUTE allows: send fewer events, or have an operator raise the limit.`;
  if (reason === REFUSAL_REASONS.too_large) return `Send fewer events per delivery from ${at}, or have an operator raise INGEST_BODY_LIMIT_KB.`;
  return `Check that ${at}’s webhook sends its own JSON deliveries (Content-Type application/json) to this connection’s URL.`;
}

function connectFor(source: Omit<SetupSource, 'next_step'>, providers: ProviderCatalog, publicBase: string): string {
  const { id, provider_name: at } = source;
  switch (source.receives) {
    case 'webhook': {
      const setup = source.provider ? providers.find(source.provider)?.setup : undefined;
      return `Paste the webhook URL and secret into ${at}’s webhook settings${setup ? ` (${setup})` : ''}; its first delivery shows here.`;
    }
    case 'pull':
      return `Wait for the daily pull, or pull now with npm run import -- ai --app ${id}.`;
    case 'import':
      return `Import a clone’s history with npm run import -- git --git-app ${id} <path to the clone>.`;
    case 'token':
      return source.kind === 'scim_token'
        ? `Give the token to your identity provider’s SCIM provisioning, with the base URL ${publicBase}/scim/v2.`
        : `Send telemetry with OTEL_EXPORTER_OTLP_ENDPOINT=${publicBase}/otlp and OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <the token>".`;
  }
}
