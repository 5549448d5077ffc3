/**
 * A pull request's activity log (`GET …/pullrequests/{id}/activity`), newest first, as review activity: the same
 * approvals, requests for changes, comments and pushes the webhooks bring (activity.ts), named the same way, so one
 * seen both ways is one row.
 */
import { z } from 'zod';
import type { ReviewActivityInput } from '../../services/git/activity';
import { time } from '../common/payload';
import { providerTime } from '../common/times';
import { Account, account, comment, commentActivity, commitName, pushActivity, verdict, verdictActivity } from './activity';
import { parsed, translated } from './api';

/**
 * An update is the pull request as it was after a change (opened, edited, pushed to, merged): its head then, and
 * its author. The log names no one else for it, so a push is taken as its author's.
 */
const update = z.looseObject({ date: time, author: account.nullish(), source: z.looseObject({ commit: commitName.nullish() }).nullish() });

/** One entry: exactly one of these is set. Tasks and attachments are the internal log's only. */
const entry = z.looseObject({
  approval: verdict.nullish(),
  changes_requested: verdict.nullish(),
  // A comment still being drafted (`pending`) is no one's yet: its webhook is sent when it is published.
  comment: comment.extend({ pending: z.boolean().nullish() }).nullish(),
  update: update.nullish(),
});

/**
 * Reads one pull request's log a page at a time. Approvals and comments are told as each page is read; pushes only
 * once the whole log is, since a head is a push only when it is not the one the pull request was opened with.
 */
export class ActivityLog {
  /** Each head the updates named, with the first time and author it was seen with: a few per pull request. */
  private readonly heads = new Map<string, { at: Date; by: Account | null | undefined }>();

  constructor(private readonly what: string) {}

  /** The review activity of a page of the log. */
  read(values: readonly unknown[]): ReviewActivityInput[] {
    const reviews: ReviewActivityInput[] = [];
    values.forEach((value, i) => {
      const at = `values.${i}`;
      const e = parsed(entry, value, this.what);
      translated(this.what, () => {
        if (e.approval) reviews.push(verdictActivity('approved', e.approval, `${at}.approval`));
        if (e.changes_requested) reviews.push(verdictActivity('changes_requested', e.changes_requested, `${at}.changes_requested`));
        if (e.comment && e.comment.pending !== true) reviews.push(commentActivity(e.comment, `${at}.comment`));
        const head = e.update?.source?.commit?.hash;
        if (e.update && head) this.sawHead(head, providerTime(e.update.date, `${at}.update.date`), e.update.author);
      });
    });
    return reviews;
  }

  /**
   * The pushes, once the whole log is read: every head but the one the pull request was opened with (the earliest
   * seen), at the first update that named it. Each head is one push, as its `commit:` id is one row: a branch reset
   * to the opening head names no new push here, where the webhook would have stored one.
   */
  pushes(): ReviewActivityInput[] {
    const byTime = [...this.heads.entries()].sort(([, a], [, b]) => a.at.getTime() - b.at.getTime());
    return byTime.slice(1).map(([head, { at, by }]) => pushActivity(head, by, at));
  }

  private sawHead(head: string, at: Date, by: Account | null | undefined): void {
    const seen = this.heads.get(head);
    if (!seen || at < seen.at) this.heads.set(head, { at, by });
  }
}
