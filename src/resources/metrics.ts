import { z } from 'zod';
import { metricEnvelope } from '../wire/envelopes';

/** The Metrics API's payloads (docs/metrics.md), each declared once; docs/metrics.md explains every figure. */

export const count = (description: string) => z.number().int().min(0).meta({ description });
export const hours = (description: string) => z.number().nullable().meta({ description: `${description}, in hours to two decimals; null when there is nothing to measure` });
const day = z.iso.date().meta({ description: 'A UTC day, YYYY-MM-DD', example: '2026-01-15' });

export const BAND = z
  .enum(['elite', 'high', 'medium', 'low'])
  .nullable()
  .meta({ description: 'The figure’s software delivery performance cluster in DORA’s Accelerate State of DevOps Report 2024 (docs/metrics.md#bands); null when the figure is null' });

export const Percentiles = z
  .object({ median: hours('Median (nearest rank)'), p75: hours('75th percentile (nearest rank)'), p90: hours('90th percentile (nearest rank)') })
  .meta({ description: 'Nearest-rank percentiles of a sample of durations: the value at rank ⌈p·n⌉ of the sorted sample' });

const Scope = z
  .object({
    organization_id: z.string(),
    team_id: z.string().nullable().meta({ description: 'The team, for a team scope; null for the whole organization' }),
    repositories: z
      .enum(['all', 'owned', 'authored'])
      .meta({
        description:
          "Which repositories the git figures cover (docs/metrics.md#what-a-team-covers): `all`, the organization's; `owned`, those the team's admins made it own; `authored`, for a team that owns none, those its members authored commits in",
      }),
  })
  .meta({ id: 'MetricScope', description: 'What the figures cover: an organization, or one of its teams (its repositories, tasks and interactions)' });

export const windowShape = {
  scope: Scope,
  from: day.meta({ description: 'First day of the window (UTC, inclusive)' }),
  to: day.meta({ description: 'Last day of the window (UTC, inclusive)' }),
  interval: z.enum(['day', 'week', 'month']).nullable().meta({ description: 'The series interval asked for; null without a series' }),
};
export const bucketStart = day.meta({ description: 'First day of the bucket: a UTC day, the Monday of an ISO week, or the first of a month (the first bucket starts at `from`)' });

export const DoraMetrics = z
  .object({
    ...windowShape,
    deployment_frequency: z.object({
      deployments: count('Successful production deployments that finished in the window'),
      per_day: z.number().min(0).meta({ description: 'deployments ÷ days in the window, to four decimals' }),
      band: BAND,
    }),
    lead_time_for_changes: z.object({
      median_hours: hours('Median of (deployment finished − commit created) over the changes shipped'),
      changes: count('Commits shipped by those deployments: each commit of the repository created after the previous successful production deployment finished, up to this one'),
      band: BAND,
    }),
    change_failure_rate: z.object({
      rate: z.number().min(0).max(1).nullable().meta({ description: 'failed ÷ deployments, to four decimals; null without deployments' }),
      failed: count('Production deployments with status failure, or named as the cause of an incident (`root cause: <sha>`)'),
      deployments: count('Production deployments that finished in the window, successful or failed'),
      band: BAND,
    }),
    time_to_restore: z.object({
      median_hours: hours('Median of (resolved − opened) over the incidents'),
      incidents: count('Incidents opened in the window and resolved'),
      band: BAND,
    }),
    failed_deployment_recovery: z
      .object({
        median_hours: hours('Median of (recovered − finished) over the recovered failed deployments'),
        deployments: count('Failed production deployments (status failure, or named as the cause of an incident) that finished in the window and have been recovered: a later successful deployment to the same repository and environment, not itself named as a cause, finished'),
        unrecovered: count('Failed production deployments that finished in the window with no such successful deployment yet; left out of the median'),
        band: BAND.meta({ description: 'By the 2024 DORA report’s recovery clusters (elite < 1 h, high < 1 day, else low), as time to restore' }),
      })
      .meta({ description: 'DORA 2023 on, failed deployment recovery time: from a failed deployment’s finish to the finish of the next successful deployment to its repository and environment that is not itself named as a cause (the rollback or fix)' }),
    rework_rate: z
      .object({
        rate: z.number().min(0).max(1).nullable().meta({ description: 'rework ÷ deployments, to four decimals; null without deployments' }),
        rework: count('Production deployments that finished while an incident of their repository was open, or that deployed the commit an incident names as its fix (`fixed by: <sha>`, the API’s `fix_sha`)'),
        deployments: count('Production deployments that finished in the window, successful or failed'),
        band: BAND.meta({ description: 'The 2024 DORA report gives the rework rate no clusters of its own: banded on the change fail rate’s (elite ≤ 0.05, high ≤ 0.20, else low)' }),
      })
      .meta({ description: 'DORA’s fifth metric, deployment rework rate: unplanned deployments made to fix a user-facing incident' }),
    series: z
      .array(
        z.object({
          start: bucketStart,
          deployments: count('Successful production deployments finished in the bucket'),
          changes: count('Commits those deployments shipped'),
          median_lead_time_hours: hours('Median lead time of those changes'),
          finished: count('Production deployments finished in the bucket, successful or failed'),
          failed: count('Of those, the failed ones'),
          change_failure_rate: z.number().min(0).max(1).nullable().meta({ description: 'failed ÷ finished; null when none finished' }),
          incidents: count('Incidents opened in the bucket and resolved'),
          median_time_to_restore_hours: hours('Median time to restore of those incidents'),
          failed_deployments_recovered: count('Failed production deployments finished in the bucket that have been recovered'),
          median_failed_deployment_recovery_hours: hours('Median failed deployment recovery time of those deployments'),
          rework: count('Production deployments finished in the bucket that were rework'),
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the same figures per bucket; counts add up to the totals' }),
  })
  .meta({ id: 'DoraMetrics', description: 'DORA metrics by the Four Keys method, over production deployments of the scope’s repositories' });

export const PullRequestMetrics = z
  .object({
    ...windowShape,
    opened: count('Pull requests opened in the window'),
    merged: count('Pull requests merged in the window'),
    closed_unmerged: count('Pull requests closed without merging in the window'),
    time_to_merge_hours: Percentiles.meta({ description: 'Merged − opened, over the pull requests merged in the window' }),
    open_now: count('Pull requests open at the time of the request'),
    open_age_hours: z
      .object({ median: hours('Median age'), p90: hours('90th percentile age') })
      .meta({ description: 'Now − opened, over the pull requests open now (nearest rank)' }),
    series: z
      .array(
        z.object({
          start: bucketStart,
          opened: count('Opened in the bucket'),
          merged: count('Merged in the bucket'),
          closed_unmerged: count('Closed without merging in the bucket'),
          time_to_merge_hours: Percentiles,
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the same figures per bucket (not the "now" ones); counts add up to the totals' }),
  })
  .meta({ id: 'PullRequestMetrics', description: 'Pull request throughput and speed over the scope’s repositories' });

const TaskTypes = z
  .object({ story: count('Stories'), bug: count('Bugs'), task: count('Tasks'), epic: count('Epics') })
  .meta({ description: 'Completed tasks by type' });

export const FlowMetrics = z
  .object({
    ...windowShape,
    completed: count('Tasks completed (done) in the window; canceled tasks are never completed'),
    lead_time_hours: Percentiles.meta({ description: 'Completed − created, over the tasks completed in the window' }),
    cycle_time_hours: Percentiles.meta({
      description: 'Completed − first active status, over the tasks completed in the window; a task with no recorded status history (or never active) counts from its creation',
    }),
    completed_with_history: count('Of the tasks completed in the window, those with a recorded status history: their cycle time starts at their first active status'),
    flow_efficiency: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: 'Σ time active ÷ Σ time active or paused, over the tasks completed in the window with a history (4 decimals); null when there are none' }),
    time_in_status_hours: z
      .object({ backlog: hours('Median time in backlog'), active: hours('Median time active'), paused: hours('Median time paused') })
      .meta({ description: 'Medians (nearest rank) of the time each task spent in each status up to its completion, over the tasks completed in the window with a history' }),
    reworked: count('Tasks reopened in the window: moved from done back to backlog, active or paused (each task once)'),
    canceled: count('Tasks canceled in the window (and canceled still)'),
    in_progress_now: count('Tasks active at the time of the request'),
    wip_age_hours: z
      .object({ median: hours('Median age'), p90: hours('90th percentile age') })
      .meta({ description: 'Now − first active status (or creation, when never seen active), over the tasks active now (nearest rank)' }),
    unassigned_now: count('Tasks in backlog, active or paused with no assignee, at the time of the request'),
    by_type: TaskTypes,
    series: z
      .array(
        z.object({
          start: bucketStart,
          completed: count('Completed in the bucket'),
          lead_time_hours: Percentiles,
          cycle_time_hours: Percentiles,
          reworked: count('Tasks reopened in the bucket (a task reopened in two buckets counts in each)'),
          canceled: count('Canceled in the bucket'),
          by_type: TaskTypes,
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the window figures per bucket (not the "now" ones); counts of completed and canceled tasks add up to the totals' }),
  })
  .meta({ id: 'FlowMetrics', description: 'Flow of the scope’s tasks: throughput, lead and cycle time, efficiency, rework, work in progress' });

const InteractionTypes = z
  .object({
    code_review: count('Code reviews'),
    communication: count('Communications'),
    task_assignment: count('Task assignments'),
  })
  .meta({ description: 'Interactions in the window by type' });

export const ActivityMetrics = z
  .object({
    ...windowShape,
    commits: count('Commits created in the window in the scope’s repositories'),
    active_authors: count('Distinct known authors (platform users) of those commits'),
    interactions_by_type: InteractionTypes,
    series: z
      .array(
        z.object({
          start: bucketStart,
          commits: count('Commits in the bucket'),
          active_authors: count('Distinct authors in the bucket (an author active in two buckets counts in both)'),
          interactions_by_type: InteractionTypes,
        }),
      )
      .optional()
      .meta({ description: 'With `interval`: the same figures per bucket; counts add up to the totals, except distinct authors' }),
  })
  .meta({ id: 'ActivityMetrics', description: 'Commit and collaboration activity of the scope' });

export const amount = (description: string) => z.number().min(0).meta({ description });
const Tokens = z
  .object({
    input: amount('Input tokens'),
    output: amount('Output tokens (Gemini CLI’s thought tokens included)'),
    cache_read: amount('Tokens read from the prompt cache'),
    cache_creation: amount('Tokens written to the prompt cache'),
  })
  .meta({ id: 'AiTokens', description: 'Tokens the tools reported' });
const aiFigures = {
  sessions: amount('Sessions started (CLI sessions, Codex conversations)'),
  prompts: amount('Prompts members sent'),
  api_requests: amount('Requests the tools made to their model APIs'),
  active_hours: z
    .object({ user: amount('Hours members spent interacting'), cli: amount('Hours the tools spent working') })
    .meta({ description: 'Active time, in hours to two decimals (Claude Code’s active_time)' }),
  tokens: Tokens,
  cost_usd: amount('Cost in US dollars as the tools estimate it (list prices, not an invoice), to four decimals'),
  lines: z.object({ added: amount('Lines added'), removed: amount('Lines removed') }).meta({ description: 'Lines of code the tools changed' }),
  commits: amount('Commits the tools made, as they report them'),
  pull_requests: amount('Pull requests the tools opened, as they report them'),
  edit_decisions: z
    .object({
      accepted: amount('Edits members accepted'),
      rejected: amount('Edits members rejected'),
      acceptance_rate: z.number().min(0).max(1).nullable().meta({ description: 'accepted ÷ (accepted + rejected); null without decisions' }),
    })
    .meta({ description: 'Decisions on the tools’ proposed file edits' }),
};

export const AiUsageMetrics = z
  .object({
    ...windowShape,
    active_users: count('Members with any AI tool activity in the window'),
    members: count('Members of the scope during the window, the organization’s or the team’s: anyone a member at some time in it (active, or suspended after it began)'),
    adoption_rate: z.number().min(0).nullable().meta({ description: 'active_users ÷ members (both of the window), to four decimals; null without members' }),
    engagement: z
      .object({ light: count('Active on fewer than 1 day a week'), moderate: count('Active on 1 to 3 days a week'), heavy: count('Active on 3 or more days a week') })
      .meta({ description: 'Active users by how many days a week they used the tools (active days ÷ the window’s weeks)' }),
    ...aiFigures,
    by_tool: z
      .array(
        z.object({
          tool: z.string().meta({ description: '`claude_code`, `gemini_cli` or `codex` (OTLP telemetry), `copilot` or `cursor` (the vendors\' APIs)' }),
          active_users: count('Members who used it'),
          sessions: amount('Sessions'),
          cost_usd: amount('Cost in US dollars'),
          tokens: Tokens,
          suggestions: z
            .object({
              shown: amount('Suggestions shown (Copilot’s code generations, Cursor’s tab completions)'),
              accepted: amount('Suggestions accepted'),
              acceptance_rate: z.number().min(0).max(1).nullable().meta({ description: 'accepted ÷ shown; null when none was shown' }),
            })
            .meta({ description: 'Inline suggestions, as Copilot and Cursor report them; 0 for the tools that make none' }),
          lines: z
            .object({ suggested: amount('Lines suggested (Copilot)'), added: amount('Lines the tool wrote that were kept'), removed: amount('Lines the tool removed') })
            .meta({ description: 'The tool’s lines' }),
          chat_requests: amount('Chat requests (Copilot’s chat panel, Cursor’s chat)'),
          agent_requests: amount('Agent requests (Copilot’s agent mode and edits, Cursor’s agent and Composer)'),
        }),
      )
      .meta({ description: 'Per tool, by name' }),
    by_model: z
      .array(z.object({ model: z.string().meta({ description: 'The model as the tool names it' }), cost_usd: amount('Cost in US dollars'), tokens: Tokens }))
      .meta({ description: 'Per model, by name: the figures that have a model (tokens, cost)' }),
    unattributed: z
      .object({ sessions: amount('Sessions'), cost_usd: amount('Cost in US dollars') })
      .nullable()
      .meta({ description: 'For an organization: telemetry that matched none of its members (an e-mail not theirs, no e-mail), counted apart from every figure above; null for a team' }),
    series: z
      .array(z.object({ start: bucketStart, active_users: count('Members active in the bucket'), ...aiFigures }))
      .optional()
      .meta({ description: 'With `interval`: the same figures per bucket; amounts add up to the totals, active users do not' }),
  })
  .meta({
    id: 'AiUsageMetrics',
    description: 'How the scope’s members use AI coding tools: Claude Code, Gemini CLI and Codex from the telemetry they send to /otlp, GitHub Copilot and Cursor from their vendors’ APIs',
  });

export const DoraMetricsResponse = metricEnvelope('DoraMetrics', DoraMetrics);
export const PullRequestMetricsResponse = metricEnvelope('PullRequestMetrics', PullRequestMetrics);
export const FlowMetricsResponse = metricEnvelope('FlowMetrics', FlowMetrics);
export const ActivityMetricsResponse = metricEnvelope('ActivityMetrics', ActivityMetrics);
export const AiUsageMetricsResponse = metricEnvelope('AiUsageMetrics', AiUsageMetrics);

export type DoraMetrics = z.infer<typeof DoraMetrics>;
export type PullRequestMetrics = z.infer<typeof PullRequestMetrics>;
export type FlowMetrics = z.infer<typeof FlowMetrics>;
export type ActivityMetrics = z.infer<typeof ActivityMetrics>;
