/**
 * Anthropic's Claude Code Analytics Admin API (docs/ai-vendors.md#claude-code): a day's rows per user (and per API
 * key), a page of up to 1,000 at a time, followed by `next_page` until `has_more` is false.
 */
import { z } from 'zod';
import type { Day, OpenedSource, VendorAccountDay } from '../../services/aiVendors/vendorDay';
import { jsonOf, ProviderFailure, ProviderHttp, providerRequest } from '../../outbound/providerHttp';

export const ANTHROPIC_API_URL = 'https://api.anthropic.com';

const count = z.number().nonnegative().max(1e12).optional().default(0);
const decisions = z.looseObject({ accepted: count, rejected: count });
const entry = z.looseObject({
  date: z.string(),
  actor: z.union([
    z.looseObject({ type: z.literal('user_actor'), email_address: z.string().min(3).max(320) }),
    z.looseObject({ type: z.literal('api_actor'), api_key_name: z.string().min(1).max(300) }),
  ]),
  core_metrics: z.looseObject({
    num_sessions: count,
    lines_of_code: z.looseObject({ added: count, removed: count }).optional(),
    commits_by_claude_code: count,
    pull_requests_by_claude_code: count,
  }),
  tool_actions: z.record(z.string(), decisions).optional().default({}),
  model_breakdown: z
    .array(
      z.looseObject({
        tokens: z.looseObject({ input: count, output: count, cache_read: count, cache_creation: count }),
        // In minor units (cents for USD), the only currency Anthropic reports so far.
        estimated_cost: z.looseObject({ amount: count, currency: z.string() }).optional(),
      }),
    )
    .optional()
    .default([]),
});
const page = z.looseObject({ data: z.array(z.unknown()), has_more: z.boolean(), next_page: z.string().nullable().optional() });

/** At most this many pages a day: 1,000 rows each. */
const MAX_PAGES = 100;

/** The organization's rows of the day, or null when there are none. */
export async function claudeCodeDay(source: OpenedSource, day: Day, http: ProviderHttp): Promise<VendorAccountDay[] | null> {
  const what = `Claude Code's usage report of ${day}`;
  const accounts: VendorAccountDay[] = [];
  let cursor: string | null = null;
  for (let n = 1; ; n++) {
    const url = new URL(`${source.baseUrl ?? ANTHROPIC_API_URL}/v1/organizations/usage_report/claude_code`);
    url.searchParams.set('starting_at', day);
    url.searchParams.set('limit', '1000');
    if (cursor) url.searchParams.set('page', cursor);
    const answer = await providerRequest(http, url.toString(), { headers: { 'x-api-key': source.credential, 'anthropic-version': '2023-06-01', 'User-Agent': 'platform-api' } }, what);
    const body = page.safeParse(await jsonOf(answer, what));
    if (!body.success) throw new ProviderFailure(`${what}: page ${n} is not a usage report page`);
    for (const [i, item] of body.data.data.entries()) {
      const row = entry.safeParse(item);
      if (!row.success) throw new ProviderFailure(`${what}: page ${n}, entry ${i + 1}: ${z.prettifyError(row.error).replace(/\s+/g, ' ')}`);
      if (row.data.date.slice(0, 10) !== day) throw new ProviderFailure(`${what}: page ${n}, entry ${i + 1} is of ${row.data.date}`);
      const currency = row.data.model_breakdown.find((m) => m.estimated_cost && m.estimated_cost.currency !== 'USD')?.estimated_cost?.currency;
      if (currency) throw new ProviderFailure(`${what}: page ${n}, entry ${i + 1} gives a cost in ${currency}; costs are kept in USD`);
      accounts.push(accountDay(row.data));
    }
    cursor = body.data.has_more ? (body.data.next_page ?? null) : null;
    if (!cursor) break;
    if (n >= MAX_PAGES) throw new ProviderFailure(`${what}: more than ${MAX_PAGES} pages`);
  }
  return accounts.length ? accounts : null;
}

function accountDay(e: z.infer<typeof entry>): VendorAccountDay {
  const tools = Object.values(e.tool_actions);
  const models = e.model_breakdown;
  const sum = (values: number[]) => values.reduce((total, v) => total + v, 0);
  return {
    // A key's usage is no member's: it counts for the organization only.
    account: e.actor.type === 'user_actor' ? e.actor.email_address : `api key ${e.actor.api_key_name}`,
    active: true,
    measures: {
      sessions: e.core_metrics.num_sessions,
      lines_added: e.core_metrics.lines_of_code?.added ?? 0,
      lines_removed: e.core_metrics.lines_of_code?.removed ?? 0,
      commits: e.core_metrics.commits_by_claude_code,
      pull_requests: e.core_metrics.pull_requests_by_claude_code,
      edits_accepted: sum(tools.map((t) => t.accepted)),
      edits_rejected: sum(tools.map((t) => t.rejected)),
      input_tokens: sum(models.map((m) => m.tokens.input)),
      output_tokens: sum(models.map((m) => m.tokens.output)),
      cache_read_tokens: sum(models.map((m) => m.tokens.cache_read)),
      cache_creation_tokens: sum(models.map((m) => m.tokens.cache_creation)),
      cost_usd: sum(models.map((m) => m.estimated_cost?.amount ?? 0)) / 100,
    },
  };
}
