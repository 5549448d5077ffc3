/**
 * What a history row's fake provider serves (scripts/bench/history/): a year of a busy organization, generated a page
 * at a time from one recorded answer per endpoint, varying only ids, numbers, people and times. Every item is a
 * function of its place (the scope, its rank in the scope's list), so the fake keeps nothing but this description in
 * memory, however many items it serves, and a page asked twice is the same page.
 */
import { createHash } from 'node:crypto';

/** A member of the row's organization, as the providers name them. */
export interface BenchMember {
  /** Their login at a git provider (user_git_apps.username). */
  login: string;
  /** Their e-mail, by which Slack's accounts are linked. */
  email: string;
  /** Their account id at the provider (GitHub's user id, Slack's user id…). */
  providerId: number;
}

/** How many of each kind the fake serves. */
export type Sizes = Record<string, number>;

export interface World {
  /** The window asked for, in epoch milliseconds: every item was created or changed within it. */
  since: number;
  until: number;
  sizes: Sizes;
  members: BenchMember[];
  /** The credential the fake accepts. */
  token: string;
}

/** How many of `total` items fall to part `i` of `parts`, spread as evenly as whole numbers allow. */
export function share(total: number, parts: number, i: number): number {
  return Math.floor(((i + 1) * total) / parts) - Math.floor((i * total) / parts);
}

/** How many of `total` items fall to the parts before `i`. */
export function before(total: number, parts: number, i: number): number {
  return Math.floor((i * total) / parts);
}

/**
 * The time of the item of rank `rank` (0: the newest) among `count` spread over the window, newest first; `offset`
 * (seconds) keeps two scopes' items from sharing a time.
 */
export function spreadTime(world: World, rank: number, count: number, offset = 0): number {
  const step = (world.until - world.since) / Math.max(1, count);
  return Math.round(world.until - (rank + 0.5) * step - offset * 1000);
}

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A 40-digit hexadecimal sha made from numbers: the same numbers give the same sha. */
export const shaOf = (...parts: number[]): string => createHash('sha1').update(parts.join(':')).digest('hex');

/** Member `i`, counting round the organization. */
export const memberAt = (world: World, i: number): BenchMember => world.members[((i % world.members.length) + world.members.length) % world.members.length];

/** What a fake answers one request with. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A request to the fake: a form post's fields are in `url`'s query, a JSON body (GraphQL's) is `body`. */
export interface FakeRequest {
  method: string;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A provider's API as the fake serves it: `base` is the fake's own root (for the links it writes). */
export type FakeApi = (request: FakeRequest, base: string) => FakeAnswer;

export const notFound = (body: unknown = { message: 'Not Found' }): FakeAnswer => ({ status: 404, body });

/** The token of an `Authorization: token …` or `Bearer …` header. */
export function tokenOf(authorization: string | string[] | undefined): string | null {
  const match = /^(?:token|bearer) (.+)$/i.exec(String(authorization ?? ''));
  return match ? match[1] : null;
}
