import request from 'supertest';
import type { Express } from 'express';
import { createLoginLink } from '../../../src/auth/signIn';

/**
 * A browser signed in to the settings, as the page is: its session cookie, its CSRF token, and the service's own
 * origin on every change. `call` speaks tRPC's HTTP protocol (a query is a GET with `?input=`, a mutation a POST
 * with the input as its body).
 */
export interface SettingsBrowser {
  cookie: string;
  csrfToken: string;
  query(path: string, input?: unknown, headers?: Record<string, string>): Promise<request.Response>;
  mutate(path: string, input?: unknown, headers?: Record<string, string>): Promise<request.Response>;
}

export const ORIGIN = 'http://127.0.0.1';

/** The session cookie a response set, as a Cookie header value. */
export function sessionCookieOf(res: request.Response): string | undefined {
  const setCookie = res.headers['set-cookie'] as unknown as string[] | undefined;
  const line = setCookie?.find((c) => c.startsWith('platform_session=') && !c.startsWith('platform_session=;'));
  return line?.split(';')[0];
}

/** Signs a user in with a one-time link, as `npm run tokens -- login-link` and the link's page do. */
export async function signInWithLink(app: Express, userId: string, publicOrigin: string): Promise<SettingsBrowser> {
  const { token } = await createLoginLink(userId);
  const res = await request(app).post('/auth/link').set('Origin', publicOrigin).type('form').send({ token });
  if (res.status !== 303) throw new Error(`sign-in link refused: ${res.status} ${res.text}`);
  const cookie = sessionCookieOf(res)!;
  const session = await request(app).get('/trpc/settings.session').set('Cookie', cookie);
  return browserFor(app, cookie, session.body.result.data.csrf_token, publicOrigin);
}

/** The page's calls to an app in this process, or to a service at an address (`http://127.0.0.1:PORT`). */
export function browserFor(app: Express | string, cookie: string, csrfToken: string, origin: string): SettingsBrowser {
  return {
    cookie,
    csrfToken,
    query: (path, input, headers = {}) => {
      const search = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      return request(app).get(`/trpc/${path}${search}`).set({ Cookie: cookie, ...headers });
    },
    mutate: (path, input, headers = {}) =>
      request(app)
        .post(`/trpc/${path}`)
        .set({ Cookie: cookie, Origin: origin, 'X-CSRF-Token': csrfToken, 'Content-Type': 'application/json', ...headers })
        .send(JSON.stringify(input ?? {})),
  };
}
