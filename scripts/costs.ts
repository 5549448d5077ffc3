/**
 * npm run costs -- set --org <id> --annual-cost N [--user <id|email>] [--currency EUR] [--json]
 * npm run costs -- set --org <id> --tool <tool> --seat-monthly N [--currency EUR] [--json]
 * npm run costs -- set --org <id> --usd-rate R [--currency EUR] [--json]
 * npm run costs -- list --org <id> [--json]
 * npm run costs -- unset --org <id> (--user <id|email> | --tool T | --default | --usd-rate) [--json]
 *
 * The cost inputs of the financial metrics (docs/metrics.md#ai-review-and-cost-figures), one currency per organization.
 * Exit codes: 0 done, 1 refused (unknown organization, non-member, unknown tool, bad amount, another currency) or
 * failure, 2 usage error.
 */
import { CostRate } from '../db/models';
import { ChangeRunner } from '../src/persistence/changes/change';
import { CostRates, CostRateTarget, CostRateView, TOOL_COST_CURRENCY } from '../src/services/finance/costRates';
import { aiToolNames } from '../src/services/aiUsage/toolNames';
import { providerCatalog } from '../src/integrations/catalog';
import { nonEmpty, parse, runCli, runWriterCommand, table, UsageError } from './cli';

const catalog = providerCatalog();

const USAGE = `Usage:
  npm run costs -- set --org <id> --annual-cost N [--user <id|email>] [--currency EUR] [--json]
  npm run costs -- set --org <id> --tool <tool> --seat-monthly N [--currency EUR] [--json]
  npm run costs -- set --org <id> --usd-rate R [--currency EUR] [--json]
  npm run costs -- list --org <id> [--json]
  npm run costs -- unset --org <id> (--user <id|email> | --tool <tool> | --default | --usd-rate) [--json]

set    sets one rate of the organization, replacing the one it had:
         --annual-cost N               what a member costs a year: every member's (the default), or with
                                       --user one member's (by user id or e-mail)
         --tool T --seat-monthly N     an AI tool's seat price a month, per active user
                                       (tools: ${aiToolNames(catalog).join(', ')}); 0 for a free one.
                                       Until each tool used in a window has a price or reports its
                                       own cost (Claude Code does), the AI spend figures are null
         --usd-rate R                  what 1 US dollar is in the organization's currency: the AI tools
                                       report their cost estimates in USD (not needed when the currency is USD)
         --currency C                  ISO 4217 code; default: the organization's (USD until it has rates)
list   shows the organization's rates: subject, who, amount, per (year, month, USD) and currency.
unset  removes one rate: a member's (--user), a tool's (--tool), the default (--default) or --usd-rate.
--json prints the rate (set, unset) or the rates (list) as JSON.

An organization has one currency: to change it, unset its rates and set them again in the new one.
Amounts are 0 or more, with at most 4 decimals.
Target database: DATABASE_URL (mysql://...) or the embedded SQLite file (SQLITE_PATH).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'set'; org: string; target: CostRateTarget; amount: number; currency?: string; json: boolean }
  | { kind: 'list'; org: string; json: boolean }
  | { kind: 'unset'; org: string; target: CostRateTarget; json: boolean };

/** A plain decimal number (the service then checks its range and decimals); anything else is a usage error. */
function amountOf(flag: string, raw: string): number {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(raw.trim())) throw new UsageError(`${flag} needs a number such as 85000 or 19.50 (got '${raw}')`);
  return Number(raw);
}

function orgOf(command: string, org: string | undefined): string {
  const id = nonEmpty('--org', org);
  if (!id) throw new UsageError(`${command} needs --org <organization id>`);
  return id;
}

function parseSet(rest: string[]): Command {
  const { values } = parse(rest, {
    org: { type: 'string' },
    'annual-cost': { type: 'string' },
    user: { type: 'string' },
    tool: { type: 'string' },
    'seat-monthly': { type: 'string' },
    'usd-rate': { type: 'string' },
    currency: { type: 'string' },
    json: { type: 'boolean' },
  });
  const v = values as { org?: string; 'annual-cost'?: string; user?: string; tool?: string; 'seat-monthly'?: string; 'usd-rate'?: string; currency?: string; json?: boolean };
  const org = orgOf('set', v.org);
  const given = (['annual-cost', 'seat-monthly', 'usd-rate'] as const).filter((f) => v[f] !== undefined);
  if (given.length !== 1) throw new UsageError('set needs one of --annual-cost N, --tool T --seat-monthly N or --usd-rate R');
  const [flag] = given;
  if (v.user !== undefined && flag !== 'annual-cost') throw new UsageError('--user goes with --annual-cost (a member’s annual cost)');
  if ((v.tool !== undefined) !== (flag === 'seat-monthly')) throw new UsageError('--tool and --seat-monthly go together: --tool claude_code --seat-monthly 25');
  const user = nonEmpty('--user', v.user);
  const tool = nonEmpty('--tool', v.tool);
  const target: CostRateTarget =
    flag === 'usd-rate' ? { subject: 'usd_rate' } : tool ? { subject: 'tool', tool } : user ? { subject: 'user', user } : { subject: 'organization' };
  const currency = nonEmpty('--currency', v.currency);
  return { kind: 'set', org, target, amount: amountOf(`--${flag}`, v[flag] ?? ''), ...(currency ? { currency } : {}), json: v.json ?? false };
}

function parseUnset(rest: string[]): Command {
  const { values } = parse(rest, { org: { type: 'string' }, user: { type: 'string' }, tool: { type: 'string' }, default: { type: 'boolean' }, 'usd-rate': { type: 'boolean' }, json: { type: 'boolean' } });
  const v = values as { org?: string; user?: string; tool?: string; default?: boolean; 'usd-rate'?: boolean; json?: boolean };
  const org = orgOf('unset', v.org);
  const user = nonEmpty('--user', v.user);
  const tool = nonEmpty('--tool', v.tool);
  const targets: CostRateTarget[] = [];
  if (user) targets.push({ subject: 'user', user });
  if (tool) targets.push({ subject: 'tool', tool });
  if (v.default) targets.push({ subject: 'organization' });
  if (v['usd-rate']) targets.push({ subject: 'usd_rate' });
  if (targets.length !== 1) throw new UsageError('unset needs exactly one of --user <id|email>, --tool <tool>, --default or --usd-rate');
  return { kind: 'unset', org, target: targets[0], json: v.json ?? false };
}

export function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: set, list or unset');
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  switch (command) {
    case 'set':
      return parseSet(rest);
    case 'unset':
      return parseUnset(rest);
    case 'list': {
      const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } });
      const v = values as { org?: string; json?: boolean };
      return { kind: 'list', org: orgOf('list', v.org), json: v.json ?? false };
    }
    default:
      throw new UsageError(`unknown command "${command}"; use set, list or unset`);
  }
}

const who = (r: CostRateView): string => (r.subject === 'organization' ? 'every member' : r.subject === 'usd_rate' ? '-' : (r.user_email ?? r.subject_id));

/** One line saying what a rate is, e.g. "annual cost of ada@demo.test: 120000 EUR a year". */
function sentence(r: CostRateView): string {
  if (r.subject === 'usd_rate') return `USD rate: 1 USD = ${r.amount} ${r.currency}`;
  if (r.subject === 'tool') return `seat price of ${r.subject_id}: ${r.amount} ${r.currency} a month per active user`;
  return `annual cost of ${who(r)}: ${r.amount} ${r.currency} a year`;
}

const jsonOf = (r: CostRateView) => ({ ...r, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() });

async function run(cmd: Exclude<Command, { kind: 'help' }>, _config: unknown, out: (s: string) => void): Promise<void> {
  const rates = new CostRates(ChangeRunner.for(CostRate.sequelize!), catalog);
  switch (cmd.kind) {
    case 'set': {
      const rate = await rates.set(cmd.org, cmd.target, { amount: cmd.amount, currency: cmd.currency });
      if (cmd.json) return out(`${JSON.stringify(jsonOf(rate))}\n`);
      out(`Set the ${sentence(rate)} (organization ${cmd.org})\n`);
      const needsUsdRate = rate.currency !== TOOL_COST_CURRENCY && !(await CostRate.findOne({ where: { organization_id: cmd.org, subject: 'usd_rate' } }));
      if (needsUsdRate) {
        out(`The AI tools report their cost estimates in USD: set what 1 USD is in ${rate.currency} with "npm run costs -- set --org ${cmd.org} --usd-rate R".\n`);
      }
      return;
    }
    case 'unset': {
      const rate = await rates.unset(cmd.org, cmd.target);
      return out(cmd.json ? `${JSON.stringify(jsonOf(rate))}\n` : `Unset the ${sentence(rate)} (organization ${cmd.org})\n`);
    }
    case 'list': {
      const list = await rates.list(cmd.org);
      if (cmd.json) return out(`${JSON.stringify(list.map(jsonOf))}\n`);
      if (list.length === 0) return out(`No cost rates for organization ${cmd.org}; its currency is ${await rates.currencyOf(cmd.org)} until one is set.\n`);
      const header = ['SUBJECT', 'WHO', 'AMOUNT', 'PER', 'CURRENCY'];
      out(`${table([header, ...list.map((r) => [r.subject, who(r), String(r.amount), r.per, r.currency])])}\n`);
    }
  }
}

export function main(argv: string[]): Promise<number> {
  return runWriterCommand('costs', USAGE, parseCommand, argv, run);
}

if (require.main === module) runCli('costs', main);
