import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BitbucketEvent, bitbucketActivity } from '../../src/integrations/bitbucket/activity';
import { ActivityLog } from '../../src/integrations/bitbucket/activityLog';
import { ProviderFailure } from '../../src/outbound/providerHttp';
import type { ReviewActivityInput } from '../../src/services/git/activity';
import { BITBUCKET_PAYLOADS } from '../support/peers/bitbucket/deliveries';

/**
 * A pull request's activity log read as review activity (src/integrations/bitbucket/activityLog.ts): the recorded log of
 * `mati-1/test-1` #1 (test/fixtures/history/bitbucket/README.md says how Faros's record of it was given back the API's
 * names), and the webhook captures of test/support/peers/bitbucket/ put in the log's shape, to show that an approval or
 * a comment seen both ways is named the same.
 */
const log: Record<string, any>[] = JSON.parse(readFileSync(join(__dirname, '../fixtures/history/bitbucket/farosActivity.json'), 'utf8'));
const YANDRY = { actorUsername: '633b43292eaaa5dcfa164e12', actorProviderId: '{9411a2b3-dfed-4273-bf4c-17813a8da9b8}' };
const MATI = { actorUsername: '712020:b4f37d53-22ad-4770-ae6a-a7022897f87e', actorProviderId: '{0ee8b2b4-0bec-41be-a698-e584ab10c586}' };

/** The review a webhook delivery makes, as the ingest translation makes it. */
function webhookReview(event: BitbucketEvent): ReviewActivityInput {
  const activity = bitbucketActivity(event, BITBUCKET_PAYLOADS[event]);
  if (!('kind' in activity) || activity.kind !== 'review') throw new Error(`${event} made no review`);
  return activity.review;
}

/** An entry of the log as the API lists it: what happened, and the pull request it happened on. */
const entryOf = (event: string, key: string) => ({ [key]: BITBUCKET_PAYLOADS[event][key], pull_request: { type: 'pullrequest', id: BITBUCKET_PAYLOADS[event].pullrequest.id, title: BITBUCKET_PAYLOADS[event].pullrequest.title } });

describe('a pull request activity log', () => {
  test('approvals and comments as each page is read; the pushes once the whole log is, the opening head not one', () => {
    const reader = new ActivityLog('mati-1/test-1 #1');
    // Two pages of the log, as `next` would split it.
    const first = reader.read(log.slice(0, 3));
    const second = reader.read(log.slice(3));
    expect(first).toEqual([
      { externalId: 'comment:538893465', kind: 'comment', ...YANDRY, createdAt: new Date('2024-09-06T13:29:00.798Z') },
      { externalId: 'approved:{9411a2b3-dfed-4273-bf4c-17813a8da9b8}:2024-09-05T20:38:36.624Z', kind: 'approved', ...YANDRY, createdAt: new Date('2024-09-05T20:38:36.624Z') },
      { externalId: 'comment:538661766', kind: 'comment', ...YANDRY, createdAt: new Date('2024-09-05T20:34:50.654Z') },
    ]);
    // Updates alone bring nothing until the log ends: only then is the opening head known.
    expect(second).toEqual([]);
    // Opened at c3e80d5623ed (two updates at its opening), pushed to twice; the log names the author for each update.
    expect(reader.pushes()).toEqual([
      { externalId: 'commit:a5915af80a58', kind: 'commit', ...MATI, createdAt: new Date('2024-08-28T15:27:26.493Z') },
      { externalId: 'commit:67eefad0851c', kind: 'commit', ...MATI, createdAt: new Date('2024-09-02T12:45:25.268Z') },
    ]);
  });

  test('the log read in any order of pages finds the same pushes', () => {
    const reader = new ActivityLog('mati-1/test-1 #1');
    reader.read([...log].reverse());
    expect(reader.pushes().map((p) => p.externalId)).toEqual(['commit:a5915af80a58', 'commit:67eefad0851c']);
  });

  test('an approval, a request for changes and a comment are the rows their webhooks made', () => {
    const reader = new ActivityLog('captures');
    expect(reader.read([entryOf('pullrequest:approved', 'approval')])).toEqual([webhookReview('pullrequest:approved')]);
    expect(reader.read([entryOf('pullrequest:comment_created', 'comment')])).toEqual([webhookReview('pullrequest:comment_created')]);
    // The log calls it `changes_requested` (Faros's reader of it, README.md); the webhook, `changes_request`. Both
    // captures are the approval renamed (test/support/peers/bitbucket/README.md).
    const requested = { changes_requested: BITBUCKET_PAYLOADS['pullrequest:changes_request_created'].changes_request, pull_request: entryOf('pullrequest:approved', 'approval').pull_request };
    expect(reader.read([requested])).toEqual([webhookReview('pullrequest:changes_request_created')]);
  });

  test('a comment still a draft is no activity yet', () => {
    const comment = log.find((e) => e.comment);
    // The recorded comment, as it was before it was published.
    expect(new ActivityLog('draft').read([{ ...comment, comment: { ...comment!.comment, pending: true } }])).toEqual([]);
  });

  test('an entry that is not as Bitbucket documents it stops the log with a failure naming it', () => {
    const approval = log.find((e) => e.approval)!;
    expect(() => new ActivityLog('mati-1/test-1 #1').read([{ ...approval, approval: { ...approval.approval, date: 'yesterday' } }])).toThrow(ProviderFailure);
    expect(() => new ActivityLog('mati-1/test-1 #1').read([{ ...approval, approval: { ...approval.approval, date: 'yesterday' } }])).toThrow(/mati-1\/test-1 #1: values\.0\.approval\.date must be a time/);
  });
});
