/**
 * What GitHub's failed answers mean to the history importer (README.md#history): a rate limit (waited out by the
 * client, historyClient.ts, or reported when it did not lift in time), a refused credential, or an answer that cannot
 * be used. Apart from the client so that reading them does not load Octokit.
 */
import { z } from 'zod';
import { CredentialRefused, ProviderFailure } from '../../outbound/providerHttp';

/** What Octokit's RequestError says of GitHub's answer. */
const requestError = z.object({
  status: z.number(),
  message: z.string(),
  response: z.object({ headers: z.record(z.string(), z.unknown()) }).optional(),
});
export type AnswerError = z.infer<typeof requestError>;

export const answerOf = (error: unknown): AnswerError | null => {
  const parsed = requestError.safeParse(error);
  return parsed.success ? parsed.data : null;
};

const header = (answer: AnswerError, name: string) => {
  const value = answer.response?.headers[name];
  return typeof value === 'string' ? value : null;
};

/** The throttling plugin's own test of a rate limit (it waits these out itself): a secondary limit's message, or no requests left. */
export const throttlingRecognises = (answer: AnswerError) => /\bsecondary rate\b/i.test(answer.message) || header(answer, 'x-ratelimit-remaining') === '0';

/** A rate limit GitHub answered with, waited out or not: never a refusal of the credential. */
const isRateLimit = (answer: AnswerError) =>
  answer.status === 429 || (answer.status === 403 && (throttlingRecognises(answer) || header(answer, 'retry-after') !== null || /rate limit/i.test(answer.message)));

/** `Retry-After` in seconds (or as an HTTP date), when the answer has one. */
export function retryAfter(answer: AnswerError, now: Date): number | null {
  const value = header(answer, 'retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds;
  const at = Date.parse(value);
  return Number.isFinite(at) ? (at - now.getTime()) / 1000 : null;
}

/** The errors of a GraphQL answer: GraphqlResponseError's `errors`, or the throttling's error's `data.errors`. */
const graphqlAnswer = z.object({ errors: z.array(z.looseObject({ type: z.string().optional(), message: z.string() })).min(1) });
const graphqlErrorsOf = (error: unknown) => {
  const own = graphqlAnswer.safeParse(error);
  if (own.success) return own.data.errors;
  const data = z.object({ data: graphqlAnswer }).safeParse(error);
  return data.success ? data.data.data.errors : null;
};
const graphqlRateLimited = (errors: { type?: string }[] | null) => errors?.some((e) => e.type === 'RATE_LIMITED') ?? false;

/**
 * When a GraphQL answer (HTTP 200) says its rate limit is spent: the Unix time GitHub's `x-ratelimit-reset` names
 * (now, when it names none). Null for any other answer.
 */
export function graphqlRateLimitReset(response: { headers: Record<string, unknown>; data: unknown }): number | null {
  if (!graphqlRateLimited(graphqlErrorsOf(response))) return null;
  const reset = Number(response.headers['x-ratelimit-reset']);
  return Number.isFinite(reset) ? reset : Date.now() / 1000;
}

/**
 * What stops a read of `scope` (a repository's full name, or the credential's list of them), as the history runner
 * reports it: a refused credential, a rate limit that did not lift in time, or another answer it cannot use.
 */
export function readFailure(error: unknown, scope: string): unknown {
  if (error instanceof CredentialRefused || error instanceof ProviderFailure) return error;
  const errors = graphqlErrorsOf(error);
  if (graphqlRateLimited(errors)) return new ProviderFailure(`${scope}: GitHub's GraphQL rate limit did not lift in time; the next run resumes here`);
  if (errors) return new ProviderFailure(`${scope}: GitHub's GraphQL API answered: ${errors.map((e) => e.message).join('; ').slice(0, 200)}`);
  const answer = answerOf(error);
  if (!answer) return error;
  // GitHub's message ends with its documentation's address, of no use in a progress line.
  const said = answer.message.replace(/ - https:\/\/docs\.github\.com\S*$/, '').slice(0, 200);
  if (isRateLimit(answer)) return new ProviderFailure(`${scope}: GitHub's rate limit did not lift in time (${answer.status}: ${said}); the next run resumes here`);
  if (answer.status === 401 || answer.status === 403) return new CredentialRefused(`GitHub refused the credential reading ${scope} (${answer.status}: ${said})`);
  return new ProviderFailure(`${scope}: GitHub answered ${answer.status}: ${said}`);
}
