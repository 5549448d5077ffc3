import type * as OpenIdClient from 'openid-client';
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

/** Plain http is for an identity provider on this machine only (the tests' oidc-provider). */
function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** Loaded on first use: a service without an identity provider never loads it (about 7 MB of memory). */
const openIdClient = (): Promise<typeof OpenIdClient> => import('openid-client');

/**
 * Sign-in with OpenID Connect (DESIGN §17) through `openid-client`: the authorization code flow with PKCE, state and
 * nonce, against the provider's discovery document (read on first use, read again after a failure).
 */
export class OidcSignIn {
  private configuration?: Promise<OpenIdClient.Configuration>;

  constructor(private readonly settings: OidcSettings) {}

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

  /** Exchanges the code the callback received and checks the ID token; the e-mail must be verified by the provider. */
  async finish(callbackSearch: string, pending: PendingSignIn): Promise<SignedInIdentity> {
    const [client, config] = await Promise.all([openIdClient(), this.config()]);
    const currentUrl = new URL(this.settings.redirectUri);
    currentUrl.search = callbackSearch;
    let claims: OpenIdClient.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      throw new SignInFailure(describeFailure(client, err));
    }
    const email = typeof claims?.email === 'string' ? claims.email : undefined;
    if (!email) throw new SignInFailure('The identity provider sent no e-mail address: allow the "email" scope (and claim) for this application.');
    // Entra ID sends no email_verified; its xms_edov says the e-mail's domain is verified by the tenant.
    if (claims?.email_verified !== true && claims?.xms_edov !== true) {
      throw new SignInFailure(`The identity provider has not verified the e-mail address ${email}; verify it there, then sign in again.`);
    }
    return { email };
  }

  private config(): Promise<OpenIdClient.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.settings.issuer);
      this.configuration = openIdClient()
        .then((client) =>
          client.discovery(issuer, this.settings.clientId, undefined, client.ClientSecretBasic(this.settings.clientSecret), {
            execute: isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [],
          }),
        )
        .catch((err: unknown) => {
          this.configuration = undefined;
          throw new SignInFailure(`The identity provider at ${this.settings.issuer} could not be reached (${(err as Error).message}); try again in a moment.`);
        });
    }
    return this.configuration;
  }
}

function describeFailure(client: typeof OpenIdClient, err: unknown): string {
  if (err instanceof client.AuthorizationResponseError) {
    return `The identity provider refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return `The identity provider's answer did not check out (${message}). Start again from the sign-in page.`;
}
