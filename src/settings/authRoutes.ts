import express, { Request, Response, Router } from 'express';
import { pageSecurityPolicy } from '../wire/pagePolicy';
import type { Sessions } from '../auth/sessions';
import { OidcSignIn, SignInFailure } from '../auth/oidc';
import { findSignInUser, redeemLoginLink } from '../auth/signIn';
import { cookieHeader, CSRF_HEADER, crossSiteRefusal, readCookie, SESSION_COOKIE, SIGN_IN_COOKIE } from '../auth/sessionCookies';
import type { RateLimiter } from '../rateLimit/rateLimiter';
import { setRateLimitHeaders } from '../rateLimit/headers';
import type { Logger } from '../logger';
import { html, sendPage } from './messagePage';
import { signInErrorPage } from './errors';

export interface AuthRoutesDeps {
  sessions: Sessions;
  /** Undefined on the embedded default: then only one-time links sign in. */
  oidc?: OidcSignIn;
  limiter: RateLimiter;
  publicOrigin: string;
  /** Cookies are marked Secure when the service is reached over https. */
  secureCookies: boolean;
  logger: Logger;
}

const SETTINGS = '/settings/';

/** Only a path of this service: never another site (an open redirect), never `//host`. */
function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : SETTINGS;
}

/**
 * `/auth`: sign-in with OpenID Connect or a one-time link, and logout (docs/settings.md). Every answer is a page for a
 * person; each client IP has the API's rate limit here too.
 */
export function authRoutes(deps: AuthRoutesDeps): Router {
  const router = Router();
  router.use(pageSecurityPolicy());
  const sessionCookie = (value: string, maxAgeSeconds?: number) => cookieHeader(SESSION_COOKIE, value, { secure: deps.secureCookies, path: '/', maxAgeSeconds });
  const signInCookie = (value: string, maxAgeSeconds: number) => cookieHeader(SIGN_IN_COOKIE, value, { secure: deps.secureCookies, path: '/auth', maxAgeSeconds });

  router.use(async (req, res, next) => {
    try {
      const decision = await deps.limiter.consume(`auth:ip:${req.ip}`);
      setRateLimitHeaders(res, decision);
      if (!decision.allowed) return sendPage(res, 429, 'Too many attempts', html`<p>Wait ${String(decision.retryAfterSeconds)} seconds, then try again.</p>`);
      res.set('Cache-Control', 'no-store');
      // helmet's no-referrer makes a browser send `Origin: null` with a form's POST; same-origin keeps the real one.
      res.set('Referrer-Policy', 'same-origin');
      next();
    } catch (err) {
      next(err);
    }
  });

  /** Starts a session and lands on `returnTo`. */
  const signInAs = async (res: Response, userId: string, returnTo: string) => {
    const { id } = await deps.sessions.start(userId);
    res.append('Set-Cookie', sessionCookie(id));
    res.redirect(303, returnTo);
  };

  router.get('/login', async (req, res, next) => {
    try {
      if (!deps.oidc) return sendPage(res, 200, 'Sign in with a link', NO_PROVIDER);
      const { url, pending } = await deps.oidc.begin(safeReturnTo(req.query.return_to));
      res.append('Set-Cookie', signInCookie(await deps.sessions.beginSignIn(pending), 600));
      res.redirect(302, url);
    } catch (err) {
      if (err instanceof SignInFailure) return sendPage(res, 503, 'Sign-in is unavailable', html`<p>${err.message}</p>`);
      next(err);
    }
  });

  router.get('/callback', async (req, res, next) => {
    try {
      res.append('Set-Cookie', signInCookie('', 0));
      const cookie = readCookie(req.headers.cookie, SIGN_IN_COOKIE);
      const pending = cookie && deps.oidc ? await deps.sessions.takeSignIn(cookie) : undefined;
      if (!deps.oidc || !pending) return sendPage(res, 400, 'This sign-in has expired', html`<p>It took longer than ten minutes, was already used, or was started in another browser.</p>${AGAIN}`);
      const search = new URL(req.originalUrl, 'http://localhost').search;
      const identity = await deps.oidc.finish(search, pending);
      const candidate = await findSignInUser(identity.email);
      if (!candidate.ok) return sendPage(res, 403, 'You cannot sign in here', html`<p>${candidate.refusal}</p>`);
      await signInAs(res, candidate.userId, pending.returnTo);
    } catch (err) {
      if (err instanceof SignInFailure) return sendPage(res, 400, 'Sign-in failed', html`<p>${err.message}</p>${AGAIN}`);
      next(err);
    }
  });

  // With an identity provider, everyone signs in through it (its MFA and policies); links are for the embedded default.
  router.use('/link', (_req, res, next) => {
    if (deps.oidc) return sendPage(res, 403, 'Sign in with your identity provider', html`<p>This service signs in through your organization's identity provider; one-time links are not accepted.</p>${AGAIN}`);
    next();
  });

  router.get('/link', (_req, res) => {
    // The token is in the fragment (never sent, never logged); the script puts it in the form. A GET only shows the
    // button: a link preview or a prefetch must not use the link up.
    sendPage(
      res,
      200,
      'Sign in',
      html`<form method="post" action="/auth/link"><input type="hidden" name="token" id="token"><p>This one-time link signs you in to the settings.</p><button type="submit">Sign in</button></form><script src="/settings/sign-in-link.js"></script>`,
    );
  });

  router.post('/link', express.urlencoded({ extended: false, limit: '2kb' }), async (req, res, next) => {
    try {
      if (!isSameOrigin(req, deps.publicOrigin)) return sendPage(res, 403, 'Refused', html`<p>A sign-in link is used from its own page only.</p>`);
      const candidate = await redeemLoginLink(String(req.body?.token ?? ''));
      if (!candidate) return sendPage(res, 400, 'This link has expired', html`<p>A sign-in link works once, within ten minutes. Ask for a new one: <code>npm run tokens -- login-link --user &lt;email&gt;</code></p>`);
      if (!candidate.ok) return sendPage(res, 403, 'You cannot sign in here', html`<p>${candidate.refusal}</p>`);
      await signInAs(res, candidate.userId, SETTINGS);
    } catch (err) {
      next(err);
    }
  });

  router.post('/logout', express.urlencoded({ extended: false, limit: '2kb' }), async (req, res, next) => {
    try {
      const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
      const session = cookie ? await deps.sessions.resume(cookie) : undefined;
      if (cookie && session) {
        const header = req.headers[CSRF_HEADER];
        const csrfToken = typeof header === 'string' ? header : typeof req.body?.csrf_token === 'string' ? req.body.csrf_token : undefined;
        const refusal = crossSiteRefusal({ origin: req.headers.origin, ownOrigin: ownOrigin(req), csrfToken }, deps.publicOrigin, session.csrfToken);
        if (refusal) return sendPage(res, 403, 'Refused', html`<p>${refusal}</p>`);
        await deps.sessions.end(cookie);
      }
      res.append('Set-Cookie', sessionCookie('', 0));
      res.redirect(303, SETTINGS);
    } catch (err) {
      next(err);
    }
  });

  router.use(signInErrorPage(deps.logger));
  return router;
}

const ownOrigin = (req: Request) => `${req.protocol}://${req.get('host')}`;

function isSameOrigin(req: Request, publicOrigin: string): boolean {
  const origin = req.headers.origin;
  return origin === publicOrigin || origin === ownOrigin(req);
}

const AGAIN = html`<p><a href="/auth/login">Sign in again</a></p>`;

const NO_PROVIDER = html`<p>This service has no identity provider configured (<code>OIDC_ISSUER</code>), so sign-in uses one-time links.</p>
<p>Someone with shell access to the service prints one for you:</p>
<pre>npm run tokens -- login-link --user you@example.com</pre>
<p>The link works once, within ten minutes.</p>`;
