import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  /** A provider that misbehaves: UserInfo names this subject instead of `sub`. */
  userInfoSub?: string;
}

export interface OidcProvider {
  /** e.g. http://127.0.0.1:45678 */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * Drives the provider's own login and consent forms over HTTP, like a browser would (keeping the provider's
   * cookies in a jar of its own), starting from an authorization URL built by the relying party. Resolves to the
   * redirect the provider finally sends back to the relying party (the redirect_uri with code, state or error,
   * iss), without requesting it.
   */
  signIn(authorizationUrl: string, login: string): Promise<string>;
  close(): Promise<void>;
}

const READY = 'OIDC_PROVIDER_READY ';
const START_TIMEOUT_MS = 15_000;

/**
 * Starts a real oidc-provider in a child process (it is ESM-only, which jest's CommonJS sandbox cannot load).
 * Call `close()` when done (e.g. in afterAll); the provider also exits if this process dies.
 */
export async function startOidcProvider(options: {
  redirectUris: string[];
  accounts: TestAccount[];
  clientId?: string;
  clientSecret?: string;
  /**
   * true (oidc-provider's default, OpenID Connect Core §5.4 to the letter): the code flow's ID token carries no `email`,
   * only UserInfo does. false: the ID token carries it too (as Okta and Google send it).
   */
  conformIdTokenClaims?: boolean;
  /** false: the provider has no UserInfo endpoint (its discovery document names none). */
  userinfo?: boolean;
  /** false: the ID token never carries `email` (a provider not set up to put it there), whatever the above. */
  emailInIdToken?: boolean;
}): Promise<OidcProvider> {
  const clientId = options.clientId ?? 'test-client';
  const clientSecret = options.clientSecret ?? randomBytes(16).toString('base64url');
  const config = {
    clientId,
    clientSecret,
    redirectUris: options.redirectUris,
    accounts: options.accounts,
    conformIdTokenClaims: options.conformIdTokenClaims,
    userinfo: options.userinfo,
    emailInIdToken: options.emailInIdToken,
  };

  // stdin stays an open pipe only so that the child notices (end of input) when this process goes away.
  const child = spawn(process.execPath, [path.join(__dirname, 'oidcProviderServer.mjs')], {
    env: { ...process.env, OIDC_TEST_CONFIG: JSON.stringify(config) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const issuer = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const settle = (error?: string): void => {
      clearTimeout(timer);
      child.off('close', onExit);
      if (error === undefined) return;
      child.kill('SIGKILL');
      reject(new Error(`oidc-provider test server ${error}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`));
    };
    const onExit = (code: number | null, signal: string | null): void =>
      settle(`exited before it was ready (code ${code}, signal ${signal})`);
    const timer = setTimeout(() => settle(`was not ready within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    // 'close' rather than 'exit': it comes after stderr is drained, so the error below has all of it.
    child.on('close', onExit);
    child.once('error', (error) => settle(`could not be spawned: ${error.message}`));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith(READY));
      if (line === undefined) return;
      settle();
      resolve(line.slice(READY.length).trim());
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signIn: (authorizationUrl, login) => signIn(new URL(issuer).origin, authorizationUrl, login),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function signIn(providerOrigin: string, authorizationUrl: string, login: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let body: URLSearchParams | undefined;

  // Authorization request, login redirect, login form, resume, consent redirect, consent form, resume: about 7 hops.
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      body,
      redirect: 'manual',
      headers: cookies.size ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {},
    });
    storeCookies(cookies, response.headers.getSetCookie());

    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== providerOrigin) return next.href;
      url = next;
      body = undefined;
      continue;
    }

    const html = await response.text();
    const form = response.ok ? parseForm(html) : undefined;
    if (!form) {
      throw new Error(`oidc-provider sign-in stopped at ${url.href} with HTTP ${response.status}:\n${html.slice(0, 2000)}`);
    }
    url = new URL(form.action, url);
    body = new URLSearchParams(form.hidden);
    // The development login form accepts any password.
    if (form.fields.includes('login')) body.set('login', login);
    if (form.fields.includes('password')) body.set('password', 'any-password');
  }
  throw new Error(`oidc-provider sign-in did not redirect back to the relying party (last URL ${url.href})`);
}

/** Cookies are kept by name only: the jar only ever talks to one origin, and the newest cookie of a name wins. */
function storeCookies(cookies: Map<string, string>, setCookies: string[]): void {
  for (const setCookie of setCookies) {
    const [pair, ...attributes] = setCookie.split(';');
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    // oidc-provider clears a cookie by sending it empty with an expiry in the past.
    const expired = attributes.some((attribute) => {
      const [key, ...rest] = attribute.trim().split('=');
      const attributeValue = rest.join('=');
      if (key.toLowerCase() === 'max-age') return Number(attributeValue) <= 0;
      if (key.toLowerCase() === 'expires') return Date.parse(attributeValue) <= Date.now();
      return false;
    });
    if (expired || value === '') cookies.delete(name);
    else cookies.set(name, value);
  }
}

interface ParsedForm {
  action: string;
  hidden: [string, string][];
  fields: string[];
}

/** Reads the first form of a page rendered by oidc-provider's development interactions (login or consent). */
function parseForm(html: string): ParsedForm | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const action = attribute(form[1], 'action');
  if (action === undefined) return undefined;
  const hidden: [string, string][] = [];
  const fields: string[] = [];
  for (const [, input] of form[2].matchAll(/<input\b([^>]*)>/gi)) {
    const name = attribute(input, 'name');
    if (name === undefined) continue;
    if (attribute(input, 'type')?.toLowerCase() === 'hidden') hidden.push([name, attribute(input, 'value') ?? '']);
    else fields.push(name);
  }
  return { action, hidden, fields };
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag);
  if (!match) return undefined;
  return decodeEntities(match[1] ?? match[2]);
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity[0] !== '#') return NAMED_ENTITIES[entity.toLowerCase()];
    return String.fromCodePoint(entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
  });
}
