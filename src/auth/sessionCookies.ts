import { timingSafeEqual } from 'node:crypto';

/** The signed-in session's cookie (docs/settings.md): HttpOnly, SameSite=Lax, Secure behind https. */
export const SESSION_COOKIE = 'platform_session';
/** A sign-in under way at the identity provider; only /auth reads it. */
export const SIGN_IN_COOKIE = 'platform_sign_in';
/** The header the page sends the session's CSRF token in, on every mutation. */
export const CSRF_HEADER = 'x-csrf-token';

/** A cookie's value from a Cookie header; the first of several with one name. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  path: string;
  /** Seconds; 0 deletes the cookie. Left out: it lasts as long as the browser (the server ends the session). */
  maxAgeSeconds?: number;
}

/** A Set-Cookie value. The values are base64url, so nothing needs escaping. */
export function cookieHeader(name: string, value: string, o: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${o.path}`, 'HttpOnly', 'SameSite=Lax'];
  if (o.maxAgeSeconds !== undefined) parts.push(`Max-Age=${o.maxAgeSeconds}`);
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Why a state-changing request made with the session cookie must not run, or undefined when it may: it must come
 * from a page of this service (`Origin` is the public URL's origin or the origin the request was sent to) and
 * carry the session's CSRF token.
 */
export function crossSiteRefusal(
  request: { origin: string | undefined; ownOrigin: string; csrfToken: string | undefined },
  publicOrigin: string,
  sessionCsrfToken: string,
): string | undefined {
  if (!request.origin) return 'A settings change needs the Origin header a browser sends; it is refused without one';
  if (request.origin !== publicOrigin && request.origin !== request.ownOrigin) return `A settings change from ${request.origin} is refused: only pages of this service may make one`;
  if (!request.csrfToken) return `A settings change needs the session's CSRF token in the X-CSRF-Token header (settings.session gives it)`;
  const given = Buffer.from(request.csrfToken);
  const expected = Buffer.from(sessionCsrfToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "The X-CSRF-Token header is not this session's CSRF token; reload the page";
  return undefined;
}
