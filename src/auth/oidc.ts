import type * as OpenIdClient from 'openid-client';
import { OutboundPolicy, outboundFetch } from '../outbound/outboundFetch';
import type { PendingSignIn } from './sessions';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `<PUBLIC_URL>/auth/callback`: registered at the identity provider. */
  redirectUri: string;
  scopes: string;
}

/** Who the identity provider says signed in. */
export interface SignedInIdentity {
  email: string;
}

/** An answer of the identity provider that does not check out, or a refusal it sent; the message is for the person. */
export class SignInFailure extends Error {}

/** Loaded on first use: a service without an identity provider never loads it (about 7 MB of memory). */
const openIdClient = (): Promise<typeof OpenIdClient> => import('openid-client');

/**
 * Sign-in with OpenID Connect (docs/settings.md) through `openid-client`: the authorization code flow with PKCE, state and
 * nonce, against the provider's discovery document (read on first use, read again after a failure). Every request to
 * the provider (discovery, keys, token, UserInfo) is an outgoing call (src/outbound): https, through the address guard,
 * no redirect followed, each answer capped.
 */
export class OidcSignIn {
  private configuration?: Promise<OpenIdClient.Configuration>;

  constructor(
    private readonly settings: OidcSettings,
    private readonly outbound: OutboundPolicy,
  ) {}

  /** Where to send the browser, and what the callback must find again. */
  async begin(returnTo: string): Promise<{ url: string; pending: PendingSignIn }> {
    const [client, config] = await Promise.all([openIdClient(), this.config()]);
    const pending: PendingSignIn = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier(), returnTo };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /**
   * Exchanges the code the callback received and checks the ID token; the e-mail must be verified by the provider.
   * A provider that follows OpenID Connect Core §5.4 to the letter sends the `email` scope's claims only from UserInfo
   * (Okta and Google put them in the ID token too): where the ID token lacks them, UserInfo is read with the access
   * token, and its `sub` must be the ID token's (§5.3.2).
   */
  async finish(callbackSearch: string, pending: PendingSignIn): Promise<SignedInIdentity> {
    const [client, config] = await Promise.all([openIdClient(), this.config()]);
    const currentUrl = new URL(this.settings.redirectUri);
    currentUrl.search = callbackSearch;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    let idToken: OpenIdClient.IDToken | undefined;
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      idToken = tokens.claims();
    } catch (err) {
      throw new SignInFailure(describeFailure(client, err));
    }
    if (!idToken) throw new SignInFailure('The identity provider sent no ID token. Start again from the sign-in page.');
    const fromIdToken = emailClaimsOf(idToken);
    if (isSettled(fromIdToken)) return verifiedIdentity(fromIdToken);

    const userInfoEndpoint = config.serverMetadata().userinfo_endpoint;
    const sent = [`the ID token's claims were ${claimNames(idToken)}`, `the granted scopes "${tokens.scope ?? this.settings.scopes}"`];
    if (!userInfoEndpoint) throw new SignInFailure(noEmail([...sent, 'the provider has no UserInfo endpoint']));
    let userInfo: OpenIdClient.UserInfoResponse;
    try {
      userInfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
    } catch (err) {
      throw new SignInFailure(describeUserInfoFailure(client, err));
    }
    const fromUserInfo = emailClaimsOf(userInfo);
    // The ID token's e-mail, if any, is the one signing in; UserInfo only says whether it is verified.
    const merged = fromIdToken.email && fromUserInfo.email !== fromIdToken.email ? fromIdToken : { ...fromIdToken, ...defined(fromUserInfo) };
    if (!merged.email) throw new SignInFailure(noEmail([...sent, `UserInfo's were ${claimNames(userInfo)}`]));
    return verifiedIdentity(merged);
  }

  private config(): Promise<OpenIdClient.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.settings.issuer);
      this.configuration = openIdClient()
        .then((client) =>
          client.discovery(issuer, this.settings.clientId, undefined, client.ClientSecretBasic(this.settings.clientSecret), {
            // Plain http passes openid-client only when the outgoing call's rule lets it (a test's provider, under the allowance).
            execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
            [client.customFetch]: providerFetch(this.outbound),
          }),
        )
        .catch((err: unknown) => {
          this.configuration = undefined;
          throw new SignInFailure(`The identity provider at ${this.settings.issuer} could not be reached (${err instanceof Error ? err.message : String(err)}); try again in a moment.`);
        });
    }
    return this.configuration;
  }
}

/** openid-client's requests as outgoing calls; it asks for `redirect: 'manual'` and refuses a 3xx itself. */
function providerFetch(outbound: OutboundPolicy): OpenIdClient.CustomFetch {
  return (url, { method, headers, body, signal }) => {
    if (body instanceof ReadableStream) return Promise.reject(new Error('openid-client sent a streamed body, which is not sent'));
    return outboundFetch(outbound, url, { method, headers, body, signal, redirects: 'manual' });
  };
}

/** What decides who signs in: the e-mail and whether the provider verified it. */
interface EmailClaims {
  email?: string;
  /** `email_verified`; Entra ID sends none, and its `xms_edov` says the e-mail's domain is verified by the tenant. */
  verified?: boolean;
}

function emailClaimsOf(claims: Record<string, unknown>): EmailClaims {
  const verified = claims.xms_edov === true ? true : typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined;
  return { email: typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined, verified };
}

const isSettled = (claims: EmailClaims): claims is Required<EmailClaims> => claims.email !== undefined && claims.verified !== undefined;

const defined = (claims: EmailClaims): EmailClaims => Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));

function verifiedIdentity({ email, verified }: EmailClaims): SignedInIdentity {
  if (!email) throw new SignInFailure(noEmail([]));
  if (verified !== true) throw new SignInFailure(`The identity provider has not verified the e-mail address ${email}; verify it there, then sign in again.`);
  return { email };
}

/** Names what the provider sent, so that an administrator can see which of its settings to change. */
function noEmail(sent: string[]): string {
  const what = sent.length ? ` (${sent.join('; ')})` : '';
  return `The identity provider sent no e-mail address${what}: allow the "email" scope (and claim) for this application.`;
}

const claimNames = (claims: Record<string, unknown>): string => {
  const names = Object.keys(claims).filter((name) => !ID_TOKEN_MECHANICS.has(name));
  return names.length ? names.join(', ') : 'none';
};

/** Claims every ID token carries to be checked, which say nothing about the person. */
const ID_TOKEN_MECHANICS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'azp', 'at_hash', 'c_hash', 'auth_time', 'acr', 'amr', 'sid', 'jti']);

function describeUserInfoFailure(client: typeof OpenIdClient, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof client.ResponseBodyError || err instanceof client.WWWAuthenticateChallengeError) {
    return `The identity provider's UserInfo endpoint refused the access token (${message}). Start again from the sign-in page.`;
  }
  return `The identity provider's UserInfo answer did not check out (${message}); it must name the same subject as the ID token.`;
}

function describeFailure(client: typeof OpenIdClient, err: unknown): string {
  if (err instanceof client.AuthorizationResponseError) {
    return `The identity provider refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return `The identity provider's answer did not check out (${message}). Start again from the sign-in page.`;
}
