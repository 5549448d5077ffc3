import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { hashToken } from './tokenFormat';
import { type AuthStore, parsedJson } from './sessionStore';

/** A signed-in browser (docs/settings.md). The cookie holds an opaque id; this is what the server keeps for it. */
export interface Session {
  userId: string;
  /** Sent back by the page in `X-CSRF-Token` on every mutation. */
  csrfToken: string;
  createdAt: Date;
  /** The absolute end: a week after sign-in, however busy. */
  endsAt: Date;
  /** When the session was last refreshed; it ends `idleMs` after that. */
  seenAt: Date;
}

/** A sign-in under way at the identity provider: what the callback must find again (RFC 9700 §2.1, PKCE). */
const pendingSignIn = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  /** A path of this service to land on afterwards. */
  returnTo: z.string(),
});
export type PendingSignIn = z.infer<typeof pendingSignIn>;

export interface SessionOptions {
  idleMs: number;
  absoluteMs: number;
  clock?: () => Date;
}

export const SESSION_DEFAULTS = { idleMs: 12 * 3_600_000, absoluteMs: 7 * 86_400_000 } as const;
/** How long a sign-in may stay at the identity provider. */
const SIGN_IN_MS = 10 * 60_000;
/** A session is refreshed at most this often: a page's burst of calls writes once. */
const REFRESH_EVERY_MS = 60_000;

/** A session's record as stored (its times in epoch milliseconds). */
const storedSession = z.object({ csrfToken: z.string(), endsAt: z.number(), seenAt: z.number() });
type StoredSession = z.infer<typeof storedSession>;

const newSecret = () => randomBytes(32).toString('base64url');

export class Sessions {
  private readonly clock: () => Date;

  constructor(private readonly store: AuthStore, private readonly options: SessionOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Starts a session for a user; the returned id goes into the cookie and is never stored. */
  async start(userId: string): Promise<{ id: string; session: Session }> {
    const now = this.clock();
    await this.store.prune(now);
    const id = newSecret();
    const session: Session = { userId, csrfToken: newSecret(), createdAt: now, endsAt: new Date(now.getTime() + this.options.absoluteMs), seenAt: now };
    await this.save(id, session);
    return { id, session };
  }

  /** The live session a cookie names, refreshed when it was last seen over a minute ago; undefined otherwise. */
  async resume(id: string): Promise<Session | undefined> {
    const now = this.clock();
    const record = await this.store.get('session', hashToken(id), now);
    if (!record?.userId) return undefined;
    // A record this version cannot read is no session: its holder signs in again, never a 500.
    const parsed = storedSession.safeParse(parsedJson(record.data));
    if (!parsed.success) return undefined;
    const stored = parsed.data;
    const session: Session = { userId: record.userId, csrfToken: stored.csrfToken, createdAt: record.createdAt, endsAt: new Date(stored.endsAt), seenAt: new Date(stored.seenAt) };
    if (session.endsAt <= now || session.seenAt.getTime() + this.options.idleMs <= now.getTime()) return undefined;
    if (now.getTime() - session.seenAt.getTime() >= REFRESH_EVERY_MS) {
      session.seenAt = now;
      await this.save(id, session);
    }
    return session;
  }

  async end(id: string): Promise<void> {
    await this.store.delete('session', hashToken(id));
  }

  endForUser(userId: string): Promise<number> {
    return this.store.deleteForUser(userId);
  }

  /** Keeps what the callback needs; the returned id goes into a cookie of its own. */
  async beginSignIn(pending: PendingSignIn): Promise<string> {
    const now = this.clock();
    const id = newSecret();
    await this.store.put('sign_in', hashToken(id), { userId: null, data: JSON.stringify(pending), createdAt: now, expiresAt: new Date(now.getTime() + SIGN_IN_MS) });
    return id;
  }

  /** The sign-in a callback finishes, at most once. */
  async takeSignIn(id: string): Promise<PendingSignIn | undefined> {
    const record = await this.store.take('sign_in', hashToken(id), this.clock());
    const parsed = record && pendingSignIn.safeParse(parsedJson(record.data));
    return parsed && parsed.success ? parsed.data : undefined;
  }

  private save(id: string, s: Session): Promise<void> {
    const expiresAt = new Date(Math.min(s.endsAt.getTime(), s.seenAt.getTime() + this.options.idleMs));
    const data: StoredSession = { csrfToken: s.csrfToken, endsAt: s.endsAt.getTime(), seenAt: s.seenAt.getTime() };
    return this.store.put('session', hashToken(id), { userId: s.userId, data: JSON.stringify(data), createdAt: s.createdAt, expiresAt });
  }
}
