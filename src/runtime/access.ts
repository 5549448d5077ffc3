import { Config, publicBase } from '../config';
import type { Logger } from '../logger';
import type { RedisClient } from '../redis';
import type { ChangeRunner } from '../persistence/changes/change';
import { Authenticator } from '../auth/authenticator';
import { AccessChangeFeed } from '../auth/accessChangeFeed';
import { Sessions, SESSION_DEFAULTS } from '../auth/sessions';
import { SessionAuthenticator } from '../auth/sessionAuthenticator';
import { DatabaseAuthStore, RedisAuthStore } from '../auth/sessionStore';
import { OidcSignIn } from '../auth/oidc';
import { outboundPolicy } from '../outbound/outboundFetch';

export interface SignIn {
  sessions: Sessions;
  authenticator: SessionAuthenticator;
  /** Undefined without OIDC_ISSUER: one-time links only. */
  oidc?: OidcSignIn;
}

export interface Access {
  /** The API's tokens. */
  authenticator: Authenticator;
  signIn: SignIn;
  /** Other instances' access changes; started on the first token used, stopped by the runtime's close(). */
  accessChanges: AccessChangeFeed;
}

/**
 * Who may call: API tokens and browser sessions, and how a deactivated or suspended user loses both, here at
 * once and on the other instances within a second.
 */
export function createAccess(config: Config, logger: Logger, redis: RedisClient | undefined, keyPrefix: string, changes: ChangeRunner): Access {
  const authenticator = new Authenticator({
    cacheTtlMs: 5_000,
    lastUsedIntervalMs: 60_000,
    onBackgroundError: (err) => logger.warn({ err }, 'could not record token use'),
    onFirstUse: () => accessChanges.start(),
  });
  const signIn = createSignIn(config, redis, keyPrefix);
  const onAccessChanged = async (userIds: readonly string[]) => {
    authenticator.forgetUsers(userIds);
    // The store is every instance's: ended here, a session is ended everywhere. Should this fail, each request of
    // the session still checks the user's state.
    await signIn.authenticator.endIfBarred(userIds).catch((err) => logger.warn({ err }, 'could not end the sessions of deactivated or suspended users'));
  };
  // This instance applies an access change at once; the others within a second, when their feed reads it.
  changes.onCommitted(({ accessChangedUsers }) => onAccessChanged(accessChangedUsers));
  const accessChanges = new AccessChangeFeed({ forgetUsers: onAccessChanged, forgetAll: () => authenticator.forgetAll() }, {
    intervalMs: 1_000,
    onError: (err) => logger.warn({ err }, 'could not read access changes; cached tokens expire within 5 s'),
  });
  return { authenticator, signIn, accessChanges };
}

/** Sessions in Redis when it is configured (every instance sees one at once), else in the database. */
function createSignIn(config: Config, redis: RedisClient | undefined, keyPrefix: string): SignIn {
  const store = redis ? new RedisAuthStore(redis, keyPrefix) : new DatabaseAuthStore();
  const sessions = new Sessions(store, SESSION_DEFAULTS);
  const oidc =
    config.OIDC_ISSUER && config.OIDC_CLIENT_ID && config.OIDC_CLIENT_SECRET
      ? new OidcSignIn({
          issuer: config.OIDC_ISSUER,
          clientId: config.OIDC_CLIENT_ID,
          clientSecret: config.OIDC_CLIENT_SECRET,
          redirectUri: `${publicBase(config)}/auth/callback`,
          scopes: config.OIDC_SCOPES,
        }, outboundPolicy(config))
      : undefined;
  return { sessions, authenticator: new SessionAuthenticator(sessions), oidc };
}
