/**
 * `npm run import -- github|gitlab|bitbucket --git-app <id>` and `import -- pagerduty|opsgenie|slack --app <id>`
 * (docs/history.md): a connection's history read from its provider's API with its stored credential, through the
 * history runner (src/services/history/historyImport.ts). Progress on stderr, a line per scope that is redrawn in
 * place on a terminal; the summary on stdout.
 */
import { constants } from 'node:os';
import { loadConfig } from '../src/config';
import { DomainError } from '../src/errors';
import { INTEGRATIONS } from '../src/integrations/registry';
import { providerCatalog } from '../src/integrations/catalog';
import { checkDestination, outboundPolicy, RefusedDestination } from '../src/outbound/outboundFetch';
import { defaultHttp } from '../src/outbound/providerHttp';
import { ChangeRunner } from '../src/persistence/changes/change';
import { createHistoryImports } from '../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import type { HistoryOutcome, HistoryProgress } from '../src/services/history/historyImport';
import { nonEmpty, openServerDatabase, parse, UsageError } from './cli';

/** The providers whose history is read, as the registry says: git providers' by git app, the others' by app. */
export const HISTORY_PROVIDERS = INTEGRATIONS.filter((p) => 'history' in p && p.history !== undefined).map((p) => ({ id: p.id, name: p.name, gitApp: p.category === 'git' }));

export interface HistoryCommand {
  kind: 'history';
  provider: string;
  connection: { type: 'git_app' | 'app'; id: string };
  since?: Date;
  until?: Date;
  only?: string[];
  baseUrl?: string;
  json: boolean;
}

export const HISTORY_USAGE = `${HISTORY_PROVIDERS.map((p) => p.id).join('|')}
      reads a year (or the window asked) of the connection's history from the provider's API with
      the credential stored by set-credential (docs/history.md): pull requests with their reviews,
      deployments and issues of each repository (github, gitlab, bitbucket: --git-app <id>);
      incidents of each service (pagerduty), alerts (opsgenie), conversations of each channel the
      bot is in (slack: --app <id>). Stored as the webhooks store them, so nothing is stored twice.
      Stopped, it goes on where it stopped; run again, it reads from where the last run reached.
        --since     the first day (YYYY-MM-DD) or an ISO 8601 time; default: where the last run
                    reached, less two days, or a year back for the first
        --until     the last moment read (YYYY-MM-DD is that day's end, UTC); default: now
        --repos     only these repositories, services or channels (names or ids, comma-separated)
        --base-url  the API's root: a self-hosted server (GitLab, GitHub Enterprise) or a fake;
                    kept for the daily catch-up
        --json      print {"connection_id","provider","since","until","scopes":[{"scope","kind",
                    "read","found","complete"}],"read","found","outcome","message","seconds"}
      Exit 1 when the provider refused the credential (the message names the scope) or an answer
      could not be used (the other scopes are read). Ctrl-C (or SIGTERM) stops it once the batch
      being stored is committed and gives the connection back (exit 130, 143): run it again to go
      on at once; a second Ctrl-C ends it at once, and the next run then waits up to ten minutes.`;

export function parseHistory(provider: string, argv: string[]): HistoryCommand {
  const known = HISTORY_PROVIDERS.find((p) => p.id === provider);
  if (!known) throw new UsageError(`unknown source "${provider}"`);
  const flag = known.gitApp ? 'git-app' : 'app';
  const { values } = parse(argv, {
    [flag]: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    repos: { type: 'string' },
    'base-url': { type: 'string' },
    json: { type: 'boolean' },
  });
  const v = values as Record<string, string | boolean | undefined>;
  const text = (name: string) => nonEmpty(`--${name}`, typeof v[name] === 'string' ? (v[name] as string) : undefined);
  const id = text(flag);
  if (!id) throw new UsageError(`${provider} needs --${flag} <id> (see npm run ${known.gitApp ? 'gitapps' : 'apps'} -- list)`);
  const since = moment('--since', text('since'), 'start');
  const until = moment('--until', text('until'), 'end');
  if (since && until && since >= until) throw new UsageError(`--since ${text('since')} is not before --until ${text('until')}`);
  const only = text('repos')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (only && only.length === 0) throw new UsageError('--repos needs at least one name or id');
  const baseUrl = text('base-url');
  if (baseUrl !== undefined && (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))) throw new UsageError(`--base-url must be an http(s) URL; got "${baseUrl}"`);
  return { kind: 'history', provider, connection: { type: known.gitApp ? 'git_app' : 'app', id }, since, until, only, baseUrl: baseUrl?.replace(/\/+$/, ''), json: v.json === true };
}

/** A day (its start, or with `end` its end, UTC) or an ISO 8601 time. */
function moment(flag: string, value: string | undefined, edge: 'start' | 'end'): Date | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const at = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) throw new UsageError(`${flag} must be a day (YYYY-MM-DD) or an ISO 8601 time; got "${value}"`);
    return new Date(edge === 'start' ? at : at + 86_400_000 - 1);
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) throw new UsageError(`${flag} must be a day (YYYY-MM-DD) or an ISO 8601 time; got "${value}"`);
  return new Date(value);
}

export async function importHistory(cmd: HistoryCommand): Promise<number> {
  const config = loadConfig();
  const outbound = outboundPolicy(config);
  if (cmd.baseUrl !== undefined) {
    try {
      await checkDestination(cmd.baseUrl, outbound);
    } catch (e) {
      if (!(e instanceof RefusedDestination)) throw e;
      process.stderr.write(`import: --base-url ${cmd.baseUrl} is refused: ${e.message}\n`);
      return 1;
    }
  }
  const database = await openServerDatabase('import', config, cmd.json);
  if (!database) return 1;
  const progress = new ProgressLines(process.stderr);
  const interrupt = new Interrupt(() => progress.end());
  try {
    const changes = ChangeRunner.for(database.sequelize);
    const imports = createHistoryImports(config, changes, new SecretBox(() => secretsKeyFor(config)), providerCatalog(), defaultHttp(outbound));
    const started = process.hrtime.bigint();
    const outcome = await imports.run({ connection: cmd.connection, since: cmd.since, until: cmd.until, only: cmd.only, baseUrl: cmd.baseUrl, onProgress: (p) => progress.show(p), signal: interrupt.signal });
    progress.end();
    const seconds = Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2));
    if (cmd.json) process.stdout.write(`${JSON.stringify({ ...outcome, seconds })}\n`);
    else process.stdout.write(summary(outcome, seconds));
    if (outcome.outcome !== 'complete') process.stderr.write(`import: ${outcome.message}\n`);
    if (outcome.outcome === 'stopped' && interrupt.caught) return 128 + constants.signals[interrupt.caught];
    return outcome.outcome === 'complete' ? 0 : 1;
  } catch (e) {
    progress.end();
    if (e instanceof DomainError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    interrupt.dispose();
    await database.close();
  }
}

/**
 * Ctrl-C (SIGINT) or SIGTERM stops the run once the batch being stored is committed: its lease is given back, so the
 * next run goes on from where it reached at once rather than after the lease lapses. The process then exits as
 * shells expect of a signal (130, 143). A second signal ends the process at once, and the lease lapses ten minutes
 * after the last page, as a killed run's does.
 */
class Interrupt {
  /** One Ctrl-C reaches this process more than once: the terminal signals npm, tsx and it, and npm and tsx pass it on. */
  static readonly SAME_SIGNAL_MS = 1000;
  private readonly controller = new AbortController();
  private caughtAt = 0;
  caught: 'SIGINT' | 'SIGTERM' | undefined;
  private readonly onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (this.caught === undefined) {
      this.caught = signal;
      this.caughtAt = Date.now();
      this.beforeSaying();
      process.stderr.write(`import: ${signal}: stopping once the batch being stored is committed (a second signal ends it at once)\n`);
      this.controller.abort(`interrupted (${signal})`);
    } else if (Date.now() - this.caughtAt >= Interrupt.SAME_SIGNAL_MS) {
      this.dispose();
      process.kill(process.pid, signal);
    }
  };

  constructor(private readonly beforeSaying: () => void) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

const FIX_AND_RUN_AGAIN = ' Not complete: run it again once the cause below is fixed; it goes on where it stopped.';
const SUMMARY_ENDS: Record<HistoryOutcome['outcome'], string> = {
  complete: '',
  refused: FIX_AND_RUN_AGAIN,
  failed: FIX_AND_RUN_AGAIN,
  stopped: ' Stopped when asked: run it again to go on from where it stopped.',
};

function summary(outcome: HistoryOutcome, seconds: number): string {
  const scopes = new Set(outcome.scopes.map((s) => s.scope)).size;
  const window = `${outcome.since.slice(0, 10)} to ${outcome.until.slice(0, 10)}`;
  const head = `Read ${outcome.read} items of ${scopes} scope${scopes === 1 ? '' : 's'} of ${outcome.provider} ${outcome.connection_id} (${window}) in ${seconds.toFixed(1)} s: `;
  const found = outcome.found === 0 ? 'nothing the webhooks had not brought.' : `${outcome.found} the webhooks had not brought, now stored.`;
  return `${head}${found}${SUMMARY_ENDS[outcome.outcome]}\n`;
}

/**
 * The progress of a run, a line per scope and kind: on a terminal the current line is redrawn in place as pages come
 * (`[3/20] acme/api pull requests: 212 read, 14 new`), and a wait for the provider's rate limit says how long; in a
 * log, a line per page.
 */
class ProgressLines {
  private open = false;

  constructor(private readonly out: NodeJS.WriteStream) {}

  show(progress: HistoryProgress): void {
    if (progress.event === 'scopes') return this.line(`${progress.scopes.length} ${progress.noun} to read\n`);
    if (progress.event === 'wait') {
      const until = new Date(Date.now() + progress.seconds * 1000).toISOString().slice(11, 19);
      return this.line(`  waiting ${progress.seconds} s for the provider's rate limit (until ${until} UTC): ${progress.reason}\n`);
    }
    const text = `  [${progress.index + 1}/${progress.of}] ${progress.scope} ${progress.kind.replace('_', ' ')}: ${progress.read} read, ${progress.found} new${progress.complete ? ', done' : ''}`;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${text}`);
      this.open = true;
      if (progress.complete) this.end();
    } else if (progress.event === 'page') {
      this.out.write(`${text}\n`);
    }
  }

  end(): void {
    if (this.open) this.out.write('\n');
    this.open = false;
  }

  private line(text: string): void {
    this.end();
    this.out.write(text);
  }
}
