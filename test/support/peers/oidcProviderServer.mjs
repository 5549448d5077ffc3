// A real OpenID Connect provider (oidc-provider 9) for tests, run as plain Node ESM in a child process
// because jest's CommonJS sandbox cannot load oidc-provider. Spawned by test/support/peers/oidcProvider.ts.
// Configuration: JSON in OIDC_TEST_CONFIG. stdout carries exactly one line, `OIDC_PROVIDER_READY <issuer>`.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fstatSync } from 'node:fs';
import { createServer } from 'node:http';
import { promisify } from 'node:util';

// oidc-provider prints its notices with console.info, which would land on stdout, the parent's channel.
for (const method of ['log', 'info', 'debug']) console[method] = console.error;

// A fresh RS256 key (the clients' default ID token algorithm) instead of the dev keys, which warn at every start.
// Generated on the thread pool while oidc-provider loads: RSA key generation alone takes 100-400 ms.
const signingKey = promisify(generateKeyPair)('rsa', { modulusLength: 2048 });

// Imported only after console is redirected: it may warn while loading (e.g. it wants Node 22 LTS).
const { default: Provider } = await import('oidc-provider');

if (!process.env.OIDC_TEST_CONFIG) throw new Error('OIDC_TEST_CONFIG (JSON) is not set');
const config = JSON.parse(process.env.OIDC_TEST_CONFIG);

const server = createServer();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;

const { privateKey } = await signingKey;

const provider = new Provider(issuer, {
  clients: [{
    client_id: config.clientId,
    client_secret: config.clientSecret,
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: config.redirectUris,
  }],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // oidc-provider's default (true) follows OpenID Connect Core §5.4: in the code flow the claims the email and profile
  // scopes ask for come only from UserInfo. false also puts them in the ID token, as Okta and Google do.
  conformIdTokenClaims: config.conformIdTokenClaims ?? true,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, userinfo: { enabled: config.userinfo ?? true } },
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  ttl: { IdToken: config.idTokenTtlSeconds ?? 3600 },
  async findAccount(_ctx, id) {
    const account = findConfiguredAccount(id);
    if (!account) return undefined;
    return {
      accountId: account.sub,
      // `use` is 'id_token' or 'userinfo': a provider may be set up to keep the e-mail out of its ID tokens.
      claims: (use) => ({
        sub: account.sub,
        ...(use === 'id_token' && config.emailInIdToken === false ? {} : { email: account.email, email_verified: account.email_verified }),
        ...(account.name === undefined ? {} : { name: account.name }),
      }),
    };
  },
});

function findConfiguredAccount(id) {
  return config.accounts.find((a) => a.sub === id || a.email === id);
}

// The development login form makes whatever was typed the session's account id, which oidc-provider then uses as
// the ID token's sub and expects to equal findAccount's accountId; so a typed email is resolved to its sub here.
// An unknown login ends the flow with access_denied (back to the relying party) instead of a new login form.
const interactionFinished = provider.interactionFinished.bind(provider);
provider.interactionFinished = (req, res, result, options) => {
  if (result.login) {
    const account = findConfiguredAccount(result.login.accountId);
    result = account
      ? { ...result, login: { ...result.login, accountId: account.sub } }
      : { error: 'access_denied', error_description: 'unknown test account' };
  }
  return interactionFinished(req, res, result, options);
};
// oidc-provider always answers UserInfo with the account's own sub; a misbehaving provider is made by rewriting it.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.oidc?.route !== 'userinfo' || typeof ctx.body?.sub !== 'string') return;
  const account = findConfiguredAccount(ctx.body.sub);
  if (account?.userInfoSub) ctx.body = { ...ctx.body, sub: account.userInfoSub };
});
provider.on('server_error', (_ctx, error) => console.error('oidc-provider server_error', error));

server.on('request', provider.callback());
process.stdout.write(`OIDC_PROVIDER_READY ${issuer}\n`);

function shutdown() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.once('SIGTERM', shutdown);
// Spawned by the wrapper, stdin is a pipe the parent holds open: its end means the parent is gone (e.g. a killed
// jest worker), so don't outlive it. A terminal or /dev/null stdin (started by hand for a browser) is left alone.
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) process.stdin.once('end', shutdown).resume();
