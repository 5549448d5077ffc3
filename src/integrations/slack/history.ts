/**
 * Slack's history (docs/history.md#slack): the conversations of the channels the app's bot is in, read from the Web
 * API (`users.conversations`, `conversations.history`, `conversations.replies`) and stored as the Events API's
 * messages are: who spoke to whom and when, never the text.
 */
import { z } from 'zod';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { HistoryReading, HistoryScope, HistorySource } from '../../services/history/historySource';
import { slackId } from './conversation';
import { SLACK_API_URL } from './importer';
import { messagePages } from './messagePages';
import type { SlackWebApi } from './webApi';

const PAGE_SIZE = 200;

/** Slack's client loads when a history is first read, not in every process that lists the providers (as GitHub's and GitLab's). */
const apiFor = async (reading: HistoryReading): Promise<SlackWebApi> => new (await import('./webApi')).SlackWebApi(reading);

const channelsPage = z.looseObject({
  channels: z.array(z.looseObject({ id: slackId, name: z.string().min(1).max(200) })).max(1000),
  response_metadata: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});

export const slackHistory: HistorySource = {
  defaultBaseUrl: SLACK_API_URL,
  scopeNoun: 'channels',
  kinds: ['messages'],
  scopes: channelsOf,
  async *pages(reading, scope, kind, window, cursor) {
    if (kind !== 'messages') throw new ProviderFailure(`Slack's history has messages only, not ${kind}`);
    yield* messagePages(await apiFor(reading), scope, window, cursor);
  },
};

/**
 * The public and private channels the bot is in, archived ones too (a year's history outlives a channel), by name;
 * those named in `only` (an id, or a name with or without '#') when given.
 */
async function channelsOf(reading: HistoryReading, only?: readonly string[]): Promise<HistoryScope[]> {
  const api = await apiFor(reading);
  const channels: HistoryScope[] = [];
  let cursor = '';
  do {
    const answer = await api.call({
      method: 'users.conversations',
      params: { types: 'public_channel,private_channel', exclude_archived: false, limit: PAGE_SIZE, cursor: cursor || undefined },
      doing: 'listing the channels the bot is in',
      scopes: 'channels:read, groups:read',
    });
    const page = channelsPage.safeParse(answer);
    if (!page.success) throw new ProviderFailure(`Slack users.conversations: the answer is not what Slack documents (${page.error.issues[0].path.join('.')}: ${page.error.issues[0].message})`);
    channels.push(...page.data.channels.map((c) => ({ key: c.id, name: `#${c.name}` })));
    cursor = page.data.response_metadata?.next_cursor ?? '';
  } while (cursor);
  const listed = channels.sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
  if (!only) return listed;
  const asked = new Set(only.map((name) => name.trim()));
  const unknown = [...asked].filter((name) => !listed.some((c) => named(c, name)));
  if (unknown.length) throw new ProviderFailure(`Slack: the bot is in no channel ${unknown.map((n) => `'${n}'`).join(', ')} (it is in ${listed.length}); invite it there (/invite @your-app) or check the name`);
  return listed.filter((c) => [...asked].some((name) => named(c, name)));
}

const named = (channel: HistoryScope, name: string): boolean => channel.key === name || channel.name === (name.startsWith('#') ? name : `#${name}`);
