import { hasControlCharacters } from '../wire/text';
import { createHash, timingSafeEqual } from 'node:crypto';
import { verifyWithFallback } from '@octokit/webhooks-methods';
import type { GitApp } from '../../db/models';
import type { GitAppWriter, IngestProvider } from '../services/git/apps/gitApps';
import { DomainError, invalid, notFound, unauthenticated } from '../errors';

const PROVIDER_NAMES: Record<IngestProvider, string> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' };

/**
 * The git app a delivery is addressed to, when the delivery proves it knows the app's webhook secret: GitHub and
 * Bitbucket sign the body (HMAC-SHA256, checked by GitHub's own helper in constant time); GitLab sends the
 * secret itself (`X-Gitlab-Token`, compared as SHA-256 digests in constant time, so neither length nor content
 * leaks through timing). During a rotation's grace period the previous secret is accepted too.
 */
/** The git app the URL names, when it takes this provider's deliveries and has a secret; before any body is read. */
export async function addressedGitApp(provider: IngestProvider, gitAppId: string, gitApps: GitAppWriter): Promise<GitApp> {
  // An id with a control character is nobody's, and is not looked up.
  const gitApp = hasControlCharacters(gitAppId) ? null : await gitApps.find(gitAppId);
  if (!gitApp) throw notFound(`Git app not found: ${JSON.stringify(gitAppId)} (see npm run gitapps -- list)`);
  if (gitApp.provider !== provider) {
    throw invalid(`Git app ${gitApp.id} is a ${gitApp.provider} app; this URL takes ${PROVIDER_NAMES[provider]} deliveries`);
  }
  if (!gitApp.webhook_secret) {
    throw unauthenticated(`Git app ${gitApp.id} has no webhook secret yet: make one with npm run gitapps -- rotate-secret ${gitApp.id}`);
  }
  return gitApp;
}

/** Whether the git app's deliveries carry its secret in a header (GitLab's `X-Gitlab-Token`), known before the body is read. */
export const sendsToken = (gitApp: GitApp) => gitApp.provider === 'gitlab';

/** A token-sending delivery's head carries the git app's secret (or, during a rotation's grace, the previous one). */
export function authenticateHead(gitApp: GitApp, headers: Record<string, string | string[] | undefined>, gitApps: GitAppWriter): void {
  checkToken(header(headers, 'x-gitlab-token'), gitApps.secretsOf(gitApp));
  refuseInactive(gitApp);
}

/** A signed delivery's body is signed with the git app's secret (or, during a rotation's grace, the previous one). */
export async function authenticateDelivery(
  gitApp: GitApp,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  gitApps: GitAppWriter,
): Promise<void> {
  const secrets = gitApps.secretsOf(gitApp);
  await checkSignature(gitApp.provider === 'github' ? 'X-Hub-Signature-256' : 'X-Hub-Signature', headers, body, secrets);
  refuseInactive(gitApp);
}

function refuseInactive(gitApp: GitApp): void {
  if (!gitApp.is_active) throw new DomainError('forbidden', `Git app ${gitApp.id} is inactive; deliveries to it are refused`);
}

/**
 * GitHub's `X-Hub-Signature-256` and Bitbucket's `X-Hub-Signature` are both `sha256=<hex HMAC-SHA256 of the body>`,
 * checked by GitHub's own helper in constant time.
 */
async function checkSignature(name: string, headers: Record<string, string | string[] | undefined>, body: Buffer, secrets: string[]): Promise<void> {
  const signature = header(headers, name.toLowerCase());
  if (!signature) throw unauthenticated(`Missing ${name}: set the webhook's secret to the one \`npm run gitapps\` printed`);
  // The helper would fall back to SHA-1 for other prefixes; only SHA-256 is accepted here.
  const valid = signature.startsWith('sha256=') && body.length > 0 && (await verifyWithFallback(secrets[0], body.toString('utf8'), signature, secrets.slice(1)));
  if (!valid) throw unauthenticated(`${name} does not match the body: the webhook's secret differs from the git app's`);
}

function checkToken(token: string | undefined, secrets: string[]): void {
  if (!token) throw unauthenticated("Missing X-Gitlab-Token: set the webhook's secret token to the one `npm run gitapps` printed");
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  const given = digest(token);
  // Every secret is compared, so the time taken does not say which one matched.
  const matches = secrets.map((s) => timingSafeEqual(given, digest(s)));
  if (!matches.includes(true)) throw unauthenticated("X-Gitlab-Token does not match the git app's webhook secret");
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
