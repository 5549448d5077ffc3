import { z } from 'zod';
import { metricEnvelope } from '../wire/envelopes';
import { bucketStart, count, windowShape } from './metrics';

/** `GET /v1/metrics/ai-impact` (docs/metrics.md#ai-review-and-cost-figures); docs/metrics.md explains every figure. */

const share = (description: string) => z.number().min(0).max(1).nullable().meta({ description: `${description}, to four decimals; null when there is nothing to divide by` });
const value = (description: string) => z.number().nullable().meta({ description: `${description}; null when there is nothing to measure` });

const Sample = (unit: string) =>
  z.object({ median: value(`Median (nearest rank), ${unit}`), p75: value(`75th percentile (nearest rank), ${unit}`), n: count('Pull requests measured') });
const Compared = (unit: string, description: string) =>
  z.object({ ai: Sample(unit).meta({ description: 'AI-assisted pull requests' }), other: Sample(unit).meta({ description: 'The others' }) }).meta({ description });

const FailureRate = (description: string) =>
  z
    .object({
      rate: share('failed ÷ deployments'),
      failed: count('Failed: status failure, or named as the cause of an incident'),
      deployments: count('Production deployments finished in the window, successful or failed'),
    })
    .meta({ description });

const AdoptionTier = z
  .object({
    tier: z
      .enum(['under_25', '25_to_50', '50_to_75', '75_and_over'])
      .meta({ description: 'A team’s ai_day_share (its members’ share of their active days with an AI coding tool, averaged): under 25 %, 25 to 50 %, 50 to 75 %, 75 % and over' }),
    from: z.number().min(0).max(1).meta({ description: 'The tier’s lowest share, included' }),
    below: z.number().min(0).max(1).nullable().meta({ description: 'The share the tier stops below; null for the top tier (up to 100 % included)' }),
    teams: z
      .array(
        z.object({
          id: z.string().meta({ description: 'The team’s id' }),
          name: z.string().meta({ description: 'The team’s name' }),
          members: count('Its members today'),
          active_users: count('Of those, active with an AI coding tool (telemetry or a vendor’s API) on at least one day of the window'),
          adoption_rate: z.number().min(0).max(1).meta({ description: 'active_users ÷ members, to four decimals: who tried a tool at all, not what decides the tier' }),
          inactive_members: count('Of its members, those with no active day in the window (no commit, no pull request opened or acted on, no AI use): each counts 0 in ai_day_share'),
          ai_day_share: z
            .number()
            .min(0)
            .max(1)
            .meta({
              description:
                'What decides the tier: each member’s days with an AI coding tool ÷ their active days in the window (a commit, a pull request opened or acted on, or AI use; 0 for an inactive member), averaged over its members, to four decimals',
            }),
        }),
      )
      .meta({ description: 'The teams in the tier, by name; a team with no members today is in none' }),
    time_to_merge_hours: z
      .object({ median: value('Median (nearest rank), in hours'), n: count('Pull requests merged in the window in the teams’ repositories') })
      .meta({ description: 'Opened → merged, over the pull requests merged in the window in the repositories the tier’s teams’ members authored commits in' }),
    deployments_per_day: z.number().min(0).nullable().meta({ description: 'Successful production deployments of those repositories finished in the window ÷ the window’s days; null for a tier without teams' }),
    change_failure_rate: FailureRate('DORA’s change failure rate of those repositories’ production deployments'),
  })
  .meta({ description: 'A group of teams by AI adoption, read as one team covering them all (docs/metrics.md, "What a team covers"): a repository several tiers’ teams work in counts in each' });

export const AiImpactMetrics = z
  .object({
    ...windowShape,
    ai_assisted_commits: z
      .object({
        count: count('AI-assisted commits created in the window'),
        commits: count('All commits created in the window'),
        share: share('count ÷ commits'),
        by_evidence: z
          .object({
            trailer: count('AI-assisted by an AI tool’s mark in the message'),
            telemetry: count('By the author’s OTLP telemetry of that UTC day reporting lines a tool changed or commits it made (and no mark)'),
            vendor_lines: count('By a vendor’s API (Copilot, Cursor, Claude Code’s analytics) reporting lines the author accepted that UTC day (and neither of the above)'),
          })
          .meta({ description: 'The AI-assisted commits by their strongest evidence; they add up to count' }),
      })
      .meta({
        description:
          'A commit is AI-assisted on evidence only: an AI tool’s mark in its message (a Co-Authored-By trailer, a "Generated with" footer), or code a tool wrote for its author that UTC day (telemetry’s lines or commits, a vendor’s accepted lines); a chat or a session that changed nothing is none',
      }),
    ai_assisted_prs: z
      .object({ count: count('AI-assisted pull requests merged in the window'), merged: count('All pull requests merged in the window'), share: share('count ÷ merged') })
      .meta({ description: 'A pull request is AI-assisted by an AI tool’s mark in its description, or when its head commit, the commit that merged it or a commit pushed to it is' }),
    time_to_merge_hours: Compared('in hours', 'Opened → merged, over the pull requests merged in the window'),
    pickup_hours: Compared('in hours', 'Opened → first review action by someone other than the author, over those merged in the window that were reviewed'),
    pr_size_lines: Compared('in lines', 'Lines added + deleted, over those merged in the window whose size the provider gave (GitHub does; GitLab’s webhooks do not)'),
    change_failure_rate: z
      .object({ ai: FailureRate('Deployments that shipped at least one AI-assisted commit'), other: FailureRate('Deployments that shipped none') })
      .meta({ description: 'DORA’s change failure rate, split by what the deployments shipped (the commits created since the previous successful production deployment of the repository)' }),
    by_adoption_tier: z
      .array(AdoptionTier)
      .nullable()
      .meta({ description: 'The organization’s teams in four tiers of AI adoption, each with its delivery figures (always four, lowest first); null for a team’s figures and for anyone but the organization’s admins' }),
    series: z
      .array(
        z.object({
          start: bucketStart,
          commits: count('Commits created in the bucket'),
          ai_assisted_commits: count('Of those, AI-assisted'),
          merged: count('Pull requests merged in the bucket'),
          ai_assisted_prs: count('Of those, AI-assisted'),
          time_to_merge_hours: Compared('in hours', 'Time to merge of those merged in the bucket'),
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the same counts and time to merge per bucket; counts add up to the totals' }),
  })
  .meta({ id: 'AiImpactMetrics', description: 'AI-assisted work against the rest: how much of it there is, how fast it merges, how big it is, and how often it breaks production' });

export const AiImpactMetricsResponse = metricEnvelope('AiImpactMetrics', AiImpactMetrics);
