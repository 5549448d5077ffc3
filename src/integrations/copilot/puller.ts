/**
 * GitHub Copilot's usage metrics reports (docs/ai-vendors.md#github-copilot): for a day, the users report's answer
 * links to NDJSON files (signed URLs, fetched without the token, over https and through the address guard like any
 * outgoing call), a line per user active that day, read line by line as they arrive.
 */
import { z } from 'zod';
import type { Day, OpenedSource, VendorAccountDay } from '../../services/aiVendors/vendorDay';
import { jsonOf, linesOf, ProviderFailure, ProviderHttp, providerRequest } from '../../outbound/providerHttp';

export const GITHUB_API_URL = 'https://api.github.com';
/** The REST API version the reports are documented under. */
const API_VERSION = '2026-03-10';

const reportLinks = z.looseObject({ download_links: z.array(z.url({ protocol: /^https?$/ })), report_day: z.string() });

const count = z.number().nonnegative().max(1e12).optional().default(0);
const feature = z.looseObject({ feature: z.string(), user_initiated_interaction_count: count });
/** A users report line: the fields read, others kept aside (GitHub adds fields over time). */
const userLine = z.looseObject({
  day: z.string(),
  user_login: z.string().min(1).max(320),
  user_initiated_interaction_count: count,
  code_generation_activity_count: count,
  code_acceptance_activity_count: count,
  loc_suggested_to_add_sum: count,
  loc_added_sum: count,
  loc_deleted_sum: count,
  totals_by_feature: z.array(feature).optional().default([]),
  totals_by_cli: z
    .looseObject({ session_count: count, token_usage: z.looseObject({ prompt_tokens_sum: count, output_tokens_sum: count }).optional() })
    .optional(),
});

/** Chat features are the chat panel's modes; the agent's are its agent mode and agent edits. */
const AGENT_FEATURES = new Set(['chat_panel_agent_mode', 'agent_edit']);
const isChat = (name: string) => name.startsWith('chat_panel_') && !AGENT_FEATURES.has(name);

/** The users' day, or null when GitHub has no report for it (not yet processed, or before the organization had any). */
export async function copilotDay(source: OpenedSource, day: Day, http: ProviderHttp): Promise<VendorAccountDay[] | null> {
  if (!source.account) throw new ProviderFailure('A Copilot app names its GitHub organization or enterprise');
  const owner = source.accountKind === 'enterprise' ? `enterprises/${encodeURIComponent(source.account)}` : `orgs/${encodeURIComponent(source.account)}`;
  const url = `${source.baseUrl ?? GITHUB_API_URL}/${owner}/copilot/metrics/reports/users-1-day?day=${day}`;
  const what = `Copilot's users report of ${day}`;
  const answer = await providerRequest(
    http,
    url,
    { headers: { Accept: 'application/vnd.github+json', Authorization: `Bearer ${source.credential}`, 'X-GitHub-Api-Version': API_VERSION, 'User-Agent': 'platform-api' } },
    what,
    true,
  );
  if (answer.status === 204 || answer.status === 404) return null;
  const body = await jsonOf(answer, what);
  // Before an organization's first report GitHub answers an empty string.
  if (body === '' || body === null) return null;
  const links = reportLinks.safeParse(body);
  if (!links.success) throw new ProviderFailure(`${what}: the answer has no download links (${z.prettifyError(links.error).split('\n')[0]})`);
  if (links.data.report_day !== day) throw new ProviderFailure(`${what}: GitHub answered with the report of ${links.data.report_day}`);
  const accounts: VendorAccountDay[] = [];
  for (const [i, link] of links.data.download_links.entries()) {
    const fileWhat = `${what}, file ${i + 1}`;
    // The link is signed: it takes no credential, so it may redirect anywhere, each hop checked as the first.
    const file = await providerRequest(http, link, { headers: { 'User-Agent': 'platform-api' }, redirects: 'anywhere', answer: 'report' }, fileWhat);
    for await (const { line, n } of linesOf(file, fileWhat)) accounts.push(userOf(line, n, day, fileWhat));
  }
  return accounts;
}

/** The line's user, or a failure naming the line: a day with one bad line is refused whole. */
function userOf(text: string, n: number, day: Day, what: string): VendorAccountDay {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderFailure(`${what}: line ${n} is not JSON`);
  }
  const line = userLine.safeParse(json);
  if (!line.success) throw new ProviderFailure(`${what}: line ${n}: ${z.prettifyError(line.error).replace(/\s+/g, ' ')}`);
  if (line.data.day !== day) throw new ProviderFailure(`${what}: line ${n} is of ${line.data.day}`);
  return userDay(line.data);
}

function userDay(u: z.infer<typeof userLine>): VendorAccountDay {
  const interactions = (pick: (name: string) => boolean) => u.totals_by_feature.filter((f) => pick(f.feature)).reduce((sum, f) => sum + f.user_initiated_interaction_count, 0);
  return {
    account: u.user_login,
    active: true,
    measures: {
      prompts: u.user_initiated_interaction_count,
      suggestions_shown: u.code_generation_activity_count,
      suggestions_accepted: u.code_acceptance_activity_count,
      lines_suggested: u.loc_suggested_to_add_sum,
      lines_added: u.loc_added_sum,
      lines_removed: u.loc_deleted_sum,
      chat_requests: interactions(isChat),
      agent_requests: interactions((name) => AGENT_FEATURES.has(name)),
      sessions: u.totals_by_cli?.session_count ?? 0,
      input_tokens: u.totals_by_cli?.token_usage?.prompt_tokens_sum ?? 0,
      output_tokens: u.totals_by_cli?.token_usage?.output_tokens_sum ?? 0,
    },
  };
}
