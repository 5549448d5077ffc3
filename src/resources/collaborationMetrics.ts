import { z } from 'zod';
import { metricEnvelope } from '../wire/envelopes';
import { bucketStart, count, hours, windowShape } from './metrics';

/** `GET /v1/metrics/collaboration` (docs/metrics.md#ai-review-and-cost-figures); docs/metrics.md explains every figure. */

const share = (description: string) => z.number().min(0).max(1).nullable().meta({ description: `${description}, to four decimals; null when there is nothing to divide by` });

const Stage = z
  .object({ median: hours('Median (nearest rank)'), p75: hours('75th percentile (nearest rank)'), n: count('Pull requests measured') })
  .meta({ id: 'ReviewStage', description: 'A review stage’s duration over the pull requests merged in the window that went through it' });

const userId = (description: string) => z.string().meta({ description, example: 'user_ada' });
const people = <T extends z.ZodType>(item: T, description: string) =>
  z.array(item).nullable().meta({ description: `${description}. Only for the organization’s admins and, for a team, its managers: null for everyone else` });

export const CollaborationMetrics = z
  .object({
    ...windowShape,
    merged: count('Pull requests merged in the window: the sample of the stages below'),
    reviews: count('Review actions (comments, approvals, changes requested) people gave on others’ pull requests in the window'),
    pickup_hours: Stage.meta({ description: 'Opened → the first review action by someone other than the author, before the merge' }),
    time_to_first_approval_hours: Stage.meta({ description: 'Opened → the first approval by someone other than the author (self-approvals do not count)' }),
    review_to_merge_hours: Stage.meta({ description: 'First review action by another person → merged' }),
    iterated_prs: z
      .object({ count: count('Merged pull requests with a commit pushed after opening'), merged: count('Pull requests merged in the window'), share: share('count ÷ merged') })
      .meta({ description: 'Pull requests that changed during review' }),
    unreviewed_merged: z
      .object({ count: count('Merged without any review action by another person before the merge'), share: share('count ÷ merged') })
      .meta({ description: 'Pull requests merged unreviewed (a self-approval alone leaves one unreviewed)' }),
    sharing_index: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .meta({ description: '0–100, to one decimal: 100 × (1 − Gini coefficient of review actions over reviewers) × reviewers ÷ available reviewers (at most 1). High when many people review evenly; null without reviews' }),
    reviewers: count('People who gave review actions in the window'),
    available_reviewers: count('Members of the scope at any time in the window'),
    review_load: people(
      z.object({ user_id: userId('The reviewer'), reviews: count('Review actions given'), share: share('reviews ÷ all review actions') }),
      'Review actions per reviewer: at most 200 reviewers, the busiest first (`reviewers` counts them all)',
    ),
    review_network: people(
      z.object({ reviewer_id: userId('Who reviewed'), author_id: userId('Whose pull requests'), reviews: count('Review actions') }),
      'Who reviews whom: at most 200 edges, the heaviest first',
    ),
    knowledge_silos: people(
      z.object({ author_id: userId('The author'), reviewer_id: userId('The one person who reviewed them'), merged_prs: count('Pull requests merged in the window') }),
      'Authors with at least three pull requests merged in the window, every one reviewed by the same single person',
    ),
    series: z
      .array(
        z.object({
          start: bucketStart,
          merged: count('Merged in the bucket'),
          reviews: count('Review actions in the bucket'),
          pickup_hours: Stage,
          time_to_first_approval_hours: Stage,
          review_to_merge_hours: Stage,
          iterated_prs: count('Merged in the bucket with a commit after opening'),
          unreviewed_merged: count('Merged in the bucket unreviewed'),
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the same figures per bucket (pull requests where they were merged, review actions where given); counts add up to the totals' }),
  })
  .meta({ id: 'CollaborationMetrics', description: 'How the scope’s people review each other’s pull requests' });

export const CollaborationMetricsResponse = metricEnvelope('CollaborationMetrics', CollaborationMetrics);
