import type { Transaction } from 'sequelize';
import { MetricRecomputation, MetricSetting } from '../models';

/**
 * Which provider accounts are bots (docs/metrics.md#bots), so that their pull requests and reviews stay out of the
 * pull-request and collaboration figures, as Swarmia and LinearB leave them out. An account is a bot when its login
 * matches the maintained list below (unless the organization turned it off) or one of the organization's own globs.
 * Logins are compared without regard to case; `*` is any run of characters, `?` one.
 */

/** The accounts every organization's figures leave out unless it says otherwise, each with where its name comes from. */
export const DEFAULT_BOT_ACCOUNTS: readonly { glob: string; why: string }[] = [
  { glob: '*[bot]', why: "GitHub: every GitHub App acts as `<app-slug>[bot]` (Dependabot, Renovate, GitHub Actions, Copilot's reviewer)" },
  { glob: 'dependabot', why: 'Dependabot on GitLab and Bitbucket (dependabot-gitlab, dependabot-core scripts)' },
  { glob: 'renovate', why: 'Renovate self-hosted: its documented default account name' },
  { glob: 'renovate-bot', why: "Renovate's hosted app on GitLab.com and Bitbucket Cloud" },
  { glob: 'project_*_bot*', why: "GitLab: a project access token's bot user is `project_<id>_bot_<random>`" },
  { glob: 'group_*_bot*', why: "GitLab: a group access token's bot user is `group_<id>_bot_<random>`" },
];

export interface BotSettings {
  /** The organization's own globs (a release bot, a service account). */
  bot_accounts: string[];
  /** The maintained list above applies. */
  bot_default_list: boolean;
}

export const DEFAULT_BOT_SETTINGS: BotSettings = { bot_accounts: [], bot_default_list: true };

const globRegExp = (glob: string) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');

/** Whether an account is a bot under these settings; an account the provider did not name is a person. */
export function botMatcher(settings: BotSettings): (login: string | null) => boolean {
  const globs = [...settings.bot_accounts, ...(settings.bot_default_list ? DEFAULT_BOT_ACCOUNTS.map((d) => d.glob) : [])].map((g) => globRegExp(g.toLowerCase()));
  return (login) => login !== null && globs.some((re) => re.test(login.toLowerCase()));
}

/**
 * The `bot` column of pull requests, their activity and samples holds two bits, one per generation of the bot
 * settings: bit `generation % 2` says whether the row is a bot's under the settings in force, the other what it is
 * under the settings being recomputed (the same when none is). A change of the bot settings rewrites the other bit
 * chunk by chunk while the figures go on reading theirs, and one change then makes it theirs: an answer reads one
 * generation or the other, never a mix (src/services/metrics/settings/recomputation.ts).
 */
export const botMask = (generation: number) => 1 << generation % 2;

/** The column's value for a row that is a bot's (`inForce`) or not under the settings in force, and (`next`) under those to come. */
export function botBits(generation: number, inForce: boolean, next: boolean): number {
  return (inForce ? botMask(generation) : 0) | (next ? botMask(generation + 1) : 0);
}

/** The condition that keeps people's rows of `alias` under a generation (an integer of ours, never input). */
export const peopleOnly = (alias: string, generation: number) => `(${alias}.bot & ${botMask(generation)}) = 0`;

/** Who is a bot under the settings in force and under those being recomputed, as the column's two bits. */
export interface BotClassifier {
  generation: number;
  /** The bits of an account (a pull request's author, or who acted). */
  of(login: string | null): number;
}

/** The bot settings of a stored settings document (src/services/metrics/settings/document.ts writes it); absent ones are the defaults. */
function botSettingsIn(document: string | undefined): BotSettings {
  let stored: unknown;
  try {
    stored = document === undefined ? {} : JSON.parse(document);
  } catch {
    stored = {};
  }
  const of = (key: string): unknown => (typeof stored === 'object' && stored !== null && key in stored ? Reflect.get(stored, key) : undefined);
  const accounts = of('bot_accounts');
  const defaults = of('bot_default_list');
  return {
    bot_accounts: Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : DEFAULT_BOT_SETTINGS.bot_accounts,
    bot_default_list: typeof defaults === 'boolean' ? defaults : DEFAULT_BOT_SETTINGS.bot_default_list,
  };
}

/**
 * Read by every writer of pull requests and their activity, in its change: the settings row is read under a shared
 * lock, so a change of the bot settings (which locks it to write) waits for the rows being written, and the rows
 * written after it see the settings it made.
 */
export async function botClassifier(transaction: Transaction, organizationId: string): Promise<BotClassifier> {
  const row = await MetricSetting.findByPk(organizationId, { transaction, lock: transaction.LOCK.SHARE });
  const pending = await MetricRecomputation.findByPk(organizationId, { transaction });
  const generation = row?.bots_generation ?? 0;
  const inForce = botMatcher(botSettingsIn(row?.document));
  const next = pending ? botMatcher(botSettingsIn(pending.document)) : inForce;
  return { generation, of: (login) => botBits(generation, inForce(login), next(login)) };
}
