/**
 * Cursor's Admin API (docs/ai-vendors.md#cursor): a day's usage per active team member, `POST /teams/daily-usage-data`
 * with the day's bounds in epoch milliseconds, the key as the basic-auth user name.
 */
import { z } from 'zod';
import type { Day, OpenedSource, VendorAccountDay } from '../../services/aiVendors/vendorDay';
import { jsonOf, ProviderFailure, ProviderHttp, providerRequest } from '../../outbound/providerHttp';

export const CURSOR_API_URL = 'https://api.cursor.com';

const count = z.number().nonnegative().max(1e12).optional().default(0);
/** A member's day: the fields read, others kept aside (Cursor adds fields over time). */
const memberDay = z.looseObject({
  email: z.string().min(3).max(320),
  /** UTC midnight of the day, in milliseconds (newer answers also give `day`). */
  date: z.number(),
  isActive: z.boolean().optional(),
  acceptedLinesAdded: count,
  acceptedLinesDeleted: count,
  totalAccepts: count,
  totalRejects: count,
  totalTabsShown: count,
  totalTabsAccepted: count,
  composerRequests: count,
  chatRequests: count,
  agentRequests: count,
  cmdkUsages: count,
});
const usage = z.looseObject({ data: z.array(z.unknown()) });

const DAY_MS = 86_400_000;

/** The team's active members' day, or null when Cursor lists none. */
export async function cursorDay(source: OpenedSource, day: Day, http: ProviderHttp): Promise<VendorAccountDay[] | null> {
  const start = Date.parse(`${day}T00:00:00Z`);
  const what = `Cursor's daily usage of ${day}`;
  const answer = await providerRequest(
    http,
    `${source.baseUrl ?? CURSOR_API_URL}/teams/daily-usage-data`,
    {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${source.credential}:`).toString('base64')}`, 'Content-Type': 'application/json', 'User-Agent': 'platform-api' },
      body: JSON.stringify({ startDate: start, endDate: start + DAY_MS }),
    },
    what,
  );
  const body = usage.safeParse(await jsonOf(answer, what));
  if (!body.success) throw new ProviderFailure(`${what}: the answer has no data list`);
  const accounts: VendorAccountDay[] = [];
  for (const [i, entry] of body.data.data.entries()) {
    const row = memberDay.safeParse(entry);
    if (!row.success) throw new ProviderFailure(`${what}: entry ${i + 1}: ${z.prettifyError(row.error).replace(/\s+/g, ' ')}`);
    // Whether Cursor's end bound is inclusive is not documented: a row of the next day is not this day's.
    if (row.data.date !== start) continue;
    accounts.push(accountDay(row.data));
  }
  return accounts.length ? accounts : null;
}

function accountDay(u: z.infer<typeof memberDay>): VendorAccountDay {
  return {
    account: u.email,
    active: u.isActive ?? true,
    measures: {
      prompts: u.chatRequests + u.composerRequests + u.agentRequests + u.cmdkUsages,
      suggestions_shown: u.totalTabsShown,
      suggestions_accepted: u.totalTabsAccepted,
      lines_added: u.acceptedLinesAdded,
      lines_removed: u.acceptedLinesDeleted,
      chat_requests: u.chatRequests,
      agent_requests: u.agentRequests + u.composerRequests,
      edits_accepted: u.totalAccepts,
      edits_rejected: u.totalRejects,
    },
  };
}
