import { z } from 'zod';
import { BotSettings, DEFAULT_BOT_ACCOUNTS, DEFAULT_BOT_SETTINGS } from '../../../../db/rollups/botAccounts';

/**
 * Which accounts are bots (docs/metrics.md#bots): their pull requests and the reviews on them, and the reviews they
 * give, are left out of the pull-request and collaboration figures. Unlike the other settings these are applied as
 * the writers store each row, so a change of them is recomputed over the history before it applies
 * (recomputation.ts).
 */
export const MAX_BOT_ACCOUNTS = 100;

const accountEntry = z
  .string({ error: 'each bot account must be a login or a glob' })
  .trim()
  .min(1, { error: 'a bot account must not be empty' })
  .max(255, { error: 'a bot account must be at most 255 characters' })
  .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'a bot account must not hold control characters' })
  .transform((v) => v.toLowerCase());

export const botSettingsShape = {
  bot_accounts: z
    .array(accountEntry, { error: 'bot_accounts must be a list of logins or globs' })
    .max(MAX_BOT_ACCOUNTS, { error: `bot_accounts takes at most ${MAX_BOT_ACCOUNTS} logins or globs` })
    .transform((list) => [...new Set(list)])
    .meta({
      description:
        'The organization’s own bot accounts (a release bot, a service account) by the provider’s login, or globs with `*` and `?`, without regard to case: their pull requests, the reviews on them and the reviews they give are left out of the pull-request and collaboration figures. Default: `[]`. Example: `["release-bot", "svc-*"]`.',
    }),
  bot_default_list: z.boolean({ error: 'bot_default_list must be true or false' }).meta({
    description: `Whether the maintained list of bot accounts also applies: ${DEFAULT_BOT_ACCOUNTS.map((d) => `\`${d.glob}\``).join(', ')}. Default: \`true\`.`,
  }),
};

export const DEFAULT_BOTS: BotSettings = DEFAULT_BOT_SETTINGS;

/** The settings a recomputation is needed for: those the writers apply. */
export const sameBots = (a: BotSettings, b: BotSettings) => a.bot_default_list === b.bot_default_list && JSON.stringify([...a.bot_accounts].sort()) === JSON.stringify([...b.bot_accounts].sort());
