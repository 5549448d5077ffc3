import { z } from 'zod';
import { metricEnvelope } from '../wire/envelopes';
import { count, windowShape } from './metrics';

/** `GET /v1/metrics/financial` (docs/metrics.md#ai-review-and-cost-figures); docs/metrics.md#financial-metrics-for-a-finance-partner explains every figure for a finance reader. */

const money = (description: string) =>
  z.number().min(0).nullable().meta({ description: `${description}, in the organization’s currency to two decimals; null when no rate it needs is set (never 0 for “unknown”)` });
const fte = (description: string) => z.number().min(0).meta({ description: `${description}, in full-time equivalents over the window (member-days ÷ window days) to two decimals` });
const share = (description: string) => z.number().min(0).max(1).nullable().meta({ description: `${description}, to four decimals; null without members` });

const Part = (description: string) =>
  z.object({ fte: fte('Time'), cost: money('Its cost'), share: share('Its share of all member time') }).meta({ description });

export const FinancialMetrics = z
  .object({
    ...windowShape,
    currency: z.string().length(3).meta({ description: 'ISO 4217 code of every amount (USD until the organization sets rates in another)', example: 'EUR' }),
    members: count('Members of the scope during the window (until suspended)'),
    fte: fte('Member time'),
    people_cost: z
      .object({
        amount: money('Σ annual cost × days a member in the window ÷ 365 over the members with a rate (their own, else the organization’s default)'),
        priced_members: count('Members with a rate'),
        members: count('All members of the window'),
      })
      .meta({ description: 'What the window’s people cost; never an individual’s figure' }),
    cost_per_engineer: money('people_cost ÷ the full-time equivalents of the members with a rate'),
    cost_per_merged_pr: money('people_cost ÷ pull requests merged in the window'),
    cost_per_completed_task: money('people_cost ÷ tasks completed in the window'),
    allocation: z
      .object({
        capitalizable: Part('Time on stories and epics: building new capability'),
        expensed: Part('Time on bugs and tasks: maintenance and upkeep'),
        unallocated: Part('Time of members who completed no task in the window'),
      })
      .meta({ description: 'Each member’s time split by the story points of the tasks they completed in the window (a task without points weighs one point)' }),
    ai: z
      .object({
        spend: money(
          'AI tools: seat price × members who used the tool × months of the window for a tool with a seat price; the tools’ own estimates for the others (converted by the USD rate); null while a tool used in the window has neither (unpriced_tools)',
        ),
        spend_per_engineer: money('spend ÷ member full-time equivalents'),
        spend_per_active_user: money('spend ÷ members who used an AI tool in the window'),
        cost_per_ai_assisted_pr: money('spend ÷ AI-assisted pull requests merged in the window (as ai-impact counts them)'),
        active_users: count('Members who used an AI tool in the window'),
        tool_estimate_usd: z.number().min(0).meta({ description: 'What the tools estimated their use cost at list prices, in US dollars, to four decimals (not an invoice)' }),
        unpriced_tools: z
          .array(z.string())
          .meta({ description: 'The AI tools used in the scope in the window with neither a seat price nor a cost estimate of their own, by name (`npm run costs -- set --tool <name> --seat-monthly N` prices one; 0 for a free one): while any is listed, spend is null', example: ['copilot'] }),
      })
      .meta({ description: 'What AI coding tools cost' }),
  })
  .meta({ id: 'FinancialMetrics', description: 'What the scope’s engineering costs, for the organization’s admins' });

export const FinancialMetricsResponse = metricEnvelope('FinancialMetrics', FinancialMetrics);
