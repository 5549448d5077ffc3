import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { firstDeliveries } from '../apps/appDeliveries';
import { recordDelivery } from '../apps/connectionStates';
import { accountDirectory } from '../work/accounts';
import { noteUnmatched } from '../people/unmatchedAccounts';
import { recordInteractions } from './interactions';

/**
 * A chat message as the service keeps it (docs/conversations.md): who wrote it, to whom it spoke, where and when;
 * never what it said.
 */
export interface ChatMessage {
  /** The channel's id at the provider. */
  channel: string;
  /** The message's id in its channel (Slack's `ts`). */
  messageId: string;
  /** The provider's account id of its author. */
  sender: string;
  /** The accounts it spoke to: those it mentions, and the author of the thread it replies in. */
  counterparts: string[];
  at: Date;
}

export interface ChatDelivery {
  source: { appId: string; organizationId: string; provider: string };
  /** The provider's event id, repeated by its retries: a retry changes nothing. */
  id: string;
  event: string;
}

export interface ConversationOutcome {
  result: 'applied' | 'duplicate';
  /** Interactions recorded: author → counterpart, both members of the organization. */
  interactions: number;
}

/**
 * Stores conversations from chat (docs/conversations.md) as `communication` interactions, author → each counterpart,
 * where both accounts are members of the organization (matched as trackers' accounts are: linked by `apps link-user`
 * or by the chat import). The delivery and the interactions are one change; each interaction is keyed by the
 * channel, the message and the counterpart, so a message seen twice adds none.
 */
export class ConversationWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  receive(delivery: ChatDelivery, messages: ChatMessage[]): Promise<ConversationOutcome> {
    return this.changes.run(async (change) => {
      const firstSeen = await firstDeliveries(change.transaction, delivery.source.appId, [delivery], this.now());
      if (firstSeen.size === 0) return { result: 'duplicate', interactions: 0 };
      const interactions = await this.record(change, delivery.source, messages);
      await recordDelivery(change.transaction, { connectionId: delivery.source.appId, organizationId: delivery.source.organizationId }, delivery.event, this.now());
      return { result: 'applied', interactions };
    });
  }

  /**
   * Messages read from the provider's history within a change another service runs (src/services/history/historyPages.ts):
   * the interactions not stored yet, their count returned.
   */
  importInto(change: Change, source: ChatDelivery['source'], messages: ChatMessage[]): Promise<number> {
    return this.record(change, source, messages);
  }

  private async record(change: Change, source: ChatDelivery['source'], messages: ChatMessage[]): Promise<number> {
    const accounts = [...new Set(messages.flatMap((m) => [m.sender, ...m.counterparts]))].map((externalId) => ({ externalId, email: null }));
    const directory = await accountDirectory({ ...source, accounts: 'app' }, accounts, change.transaction, this.now());
    const member = (externalId: string) => directory.find({ externalId, email: null });
    const unmatched = messages.flatMap((m) => (member(m.sender) ? [] : [{ account: m.sender, at: m.at }]));
    await noteUnmatched(change.transaction, { id: source.appId, organizationId: source.organizationId }, 'message', unmatched);
    return recordInteractions(
      change,
      messages.flatMap((m) => {
        const author = member(m.sender);
        if (!author) return [];
        return m.counterparts.flatMap((counterpart) => {
          const counterpartId = member(counterpart);
          if (!counterpartId) return [];
          const ref = `${source.provider}:${m.channel}:${m.messageId}:${counterpart}`;
          return [{ organizationId: source.organizationId, type: 'communication' as const, source: source.provider, userId: author, counterpartId, teamId: null, at: m.at, ref }];
        });
      }),
    );
  }
}
