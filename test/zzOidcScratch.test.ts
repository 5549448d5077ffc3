import * as client from 'openid-client';
import { startOidcProvider, type OidcProvider } from './support/oidcProvider';

const redirectUri = 'http://127.0.0.1:9999/auth/callback';
let provider: OidcProvider;

beforeAll(async () => {
  provider = await startOidcProvider({
    redirectUris: [redirectUri],
    accounts: [
      { sub: 'user-1', email: 'alice@example.com', email_verified: true, name: 'Alice' },
      { sub: 'user-2', email: 'bob@example.com', email_verified: false },
    ],
  });
});
afterAll(() => provider.close());

test.each([
  ['alice@example.com', 'user-1', true],
  ['bob@example.com', 'user-2', false],
])('signs %s in through a real provider', async (email, sub, verified) => {
  const config = await client.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const callback = await provider.signIn(url.href, email);
  const tokens = await client.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  expect(tokens.claims()).toMatchObject({ sub, email, email_verified: verified });
});
