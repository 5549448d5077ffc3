/**
 * npm run webhooks -- create --org <id> --url <url> [--events a,b,…] [--json]
 * npm run webhooks -- list [--org <id>] [--json]
 * npm run webhooks -- disable|enable|rotate-secret <endpoint id> [--json]
 * npm run webhooks -- deliveries <endpoint id> [--limit N] [--json]
 * npm run webhooks -- replay <delivery id> [--json]
 *
 * Outgoing webhook subscriptions (docs/webhooks.md). `create` and `rotate-secret` print the `whsec_` signing secret once;
 * it is stored sealed with SECRETS_KEY (on the embedded default, data/secrets.key).
 * Exit codes: 0 done, 1 refused (unknown id, unknown event, forbidden URL) or failure, 2 usage error.
 */
import { WebhookEndpoint } from '../db/models';
import { endpointView, listEndpoints, recentAttempts } from '../src/services/webhooks/endpointViews';
import type { Config } from '../src/config';
import { PREVIOUS_SECRET_GRACE_MS, SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { ChangeRunner } from '../src/persistence/changes/change';
import { EVENT_TYPES } from '../src/persistence/changes/events';
import { WebhookEndpointWriter } from '../src/services/webhooks/endpoints';
import { subscribedTypes } from '../src/persistence/changes/outbox';
import { checkEndpointUrl } from '../src/delivery/endpointUrl';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';

const USAGE = `Usage:
  npm run webhooks -- create --org <id> --url <url> [--events a,b,...] [--json]
  npm run webhooks -- list [--org <id>] [--json]
  npm run webhooks -- disable <endpoint id> [--json]
  npm run webhooks -- enable <endpoint id> [--json]
  npm run webhooks -- rotate-secret <endpoint id> [--json]
  npm run webhooks -- deliveries <endpoint id> [--limit N] [--json]
  npm run webhooks -- replay <delivery id> [--json]

create         subscribes an https:// (or http://) URL of the organization to events, all of them without
               --events, and prints the signing secret once.   --json  print {"id","secret"} on one line
list           shows endpoints (all, or one organization's), their events, whether active and why not.
disable        stops deliveries to an endpoint; what is pending waits.
enable         resumes them, the waiting ones first.
rotate-secret  prints a new signing secret once; for 24 hours deliveries are signed with both.
deliveries     shows an endpoint's recent attempts: event, HTTP status or error, duration, the answer's start.
replay         sends a delivery's event to its endpoint again (same webhook-id), e.g. once a failure is fixed.

Events: ${EVENT_TYPES.join(', ')}.
Target database: DATABASE_URL (mysql://..., which also needs SECRETS_KEY) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'create'; org: string; url: string; events: string[] | null; json: boolean }
  | { kind: 'list'; org?: string; json: boolean }
  | { kind: 'disable' | 'enable' | 'rotate-secret' | 'replay'; id: string; json: boolean }
  | { kind: 'deliveries'; id: string; limit: number; json: boolean };

const ONE_ID: Record<string, string> = {
  disable: 'endpoint id',
  enable: 'endpoint id',
  'rotate-secret': 'endpoint id',
  replay: 'delivery id (see "webhooks deliveries <endpoint id>")',
};

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: create, list, disable, enable, rotate-secret, deliveries or replay');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'create': {
      const { values } = parse(rest, { org: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; url?: string; events?: string; json?: boolean };
      const org = nonEmpty('--org', v.org);
      const url = nonEmpty('--url', v.url);
      if (!org) throw new UsageError('create needs --org <organization id>');
      if (!url) throw new UsageError('create needs --url <https://...>');
      const events = v.events === undefined ? null : v.events.split(',').map((e) => e.trim()).filter(Boolean);
      if (events?.length === 0) throw new UsageError('--events needs at least one event name; leave it out to receive every event');
      return { kind: 'create', org, url, events, json: v.json ?? false };
    }
    case 'list': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; json?: boolean };
      return { kind: 'list', org: nonEmpty('--org', v.org), json: v.json ?? false };
    }
    case 'deliveries': {
      const { values, positionals } = parse(rest, { limit: { type: 'string' }, json: { type: 'boolean' } }, true);
      const v = values as { limit?: string; json?: boolean };
      if (positionals.length !== 1) throw new UsageError('deliveries needs exactly one endpoint id (see "webhooks list")');
      const limit = v.limit === undefined ? 20 : Number(v.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
      return { kind: 'deliveries', id: nonEmpty('endpoint id', positionals[0])!, limit, json: v.json ?? false };
    }
    case 'disable':
    case 'enable':
    case 'rotate-secret':
    case 'replay': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, true);
      if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one ${ONE_ID[command]}`);
      return { kind: command, id: nonEmpty(ONE_ID[command], positionals[0])!, json: (values as { json?: boolean }).json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use create, list, disable, enable, rotate-secret, deliveries or replay`);
  }
}

async function run(cmd: Exclude<Command, { kind: 'help' }>, config: Config, out: (s: string) => void): Promise<void> {
  const writer = new WebhookEndpointWriter(
    ChangeRunner.for(WebhookEndpoint.sequelize!),
    new SecretBox(() => secretsKeyFor(config)),
    checkEndpointUrl(config.WEBHOOK_ALLOW_PRIVATE),
  );
  const print = (json: boolean, value: unknown, text: string) => out(json ? `${JSON.stringify(value)}\n` : text);
  switch (cmd.kind) {
    case 'create':
    case 'rotate-secret': {
      const { endpoint, secret } = cmd.kind === 'create' ? await writer.create(cmd.org, cmd.url, cmd.events) : await writer.rotateSecret(cmd.id);
      const events = subscribedTypes(endpoint);
      print(
        cmd.json,
        { id: endpoint.id, secret },
        `${cmd.kind === 'create' ? 'Created' : 'New secret for'} webhook endpoint ${endpoint.id} (organization ${endpoint.organization_id})\n` +
          `  url:    ${endpoint.url}\n  events: ${events ? events.join(', ') : 'all'}\n\n  ${secret}\n\n` +
          'Copy the signing secret now into your receiver (the Standard Webhooks libraries take it as is): it is shown only this once.\n' +
          (cmd.kind === 'rotate-secret' ? `For ${PREVIOUS_SECRET_GRACE_MS / 3_600_000} hours deliveries carry a signature by the previous secret too.\n` : ''),
      );
      return;
    }
    case 'list': {
      const rows = await listEndpoints(cmd.org);
      if (cmd.json || rows.length === 0) return print(cmd.json, rows, 'No webhook endpoints.\n');
      const header = ['ID', 'ORGANIZATION', 'URL', 'EVENTS', 'ACTIVE', 'CREATED'];
      const cells = rows.map((r) => [r.id, r.organization_id, r.url, r.events?.join(',') ?? 'all', r.is_active ? 'yes' : `no: ${r.disabled_reason}`, r.created_at]);
      return out(`${table([header, ...cells])}\n`);
    }
    case 'disable': {
      const endpoint = await writer.disable(cmd.id);
      return print(cmd.json, endpointView(endpoint), `Disabled ${endpoint.id}; pending deliveries wait until "webhooks enable ${endpoint.id}".\n`);
    }
    case 'enable': {
      const { endpoint, resumed } = await writer.enable(cmd.id);
      return print(cmd.json, { ...endpointView(endpoint), resumed }, `Enabled ${endpoint.id}; ${resumed} waiting deliver${resumed === 1 ? 'y goes' : 'ies go'} out now.\n`);
    }
    case 'replay': {
      const delivery = await writer.replay(cmd.id);
      return print(cmd.json, { id: delivery.id, replay_of: delivery.replay_of, event_id: delivery.event_id }, `Queued ${delivery.id}: event ${delivery.event_id} (${delivery.event_type}) goes to ${delivery.endpoint_id} again.\n`);
    }
    case 'deliveries':
      return out(await attemptsTable(cmd.id, cmd.limit, cmd.json));
  }
}

async function attemptsTable(endpointId: string, limit: number, json: boolean): Promise<string> {
  const rows = await recentAttempts(endpointId, limit);
  if (json) return `${JSON.stringify(rows)}\n`;
  if (rows.length === 0) return 'No attempts yet.\n';
  const header = ['ATTEMPTED', 'DELIVERY', 'EVENT', 'RESULT', 'MS', 'DELIVERY STATUS', 'ANSWER'];
  const cells = rows.map((r) => [
    r.attempted_at,
    r.delivery_id,
    r.event_type ?? '-',
    r.error ? `${r.status_code ?? ''} ${r.error}`.trim() : String(r.status_code),
    String(r.duration_ms),
    r.delivery_status === 'pending' ? (r.next_attempt_at ? `pending, next ${r.next_attempt_at}` : 'waiting: endpoint disabled') : (r.delivery_status ?? '-'),
    (r.response_excerpt ?? '').replace(/\s+/g, ' ').slice(0, 60),
  ]);
  return `${table([header, ...cells])}\n`;
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('webhooks', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('webhooks', main);
