import { ScimToken } from '../../db/models';
import { LastUsedRecorder } from './lastUsed';
import { TokenCache } from './tokenCache';
import { hashesEqual, hashToken, isWellFormedToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX } from './tokenFormat';
import { unauthenticated } from '../errors';

/** Who is provisioning: one organization's identity provider, through one SCIM token. */
export interface ScimCaller {
  tokenId: string;
  organizationId: string;
}

const unauthorized = unauthenticated;

/**
 * SCIM tokens (docs/architecture.md#writers) on `/scim/v2` only; API tokens are refused here as SCIM tokens are on `/v1`. A
 * revoked token stops working within the cache time (5 s) on every instance, like API tokens.
 */
export class ScimAuthenticator {
  private readonly cache: TokenCache<ScimCaller>;
  private readonly lastUsed: LastUsedRecorder;

  constructor(options: { cacheTtlMs: number; lastUsedIntervalMs: number; onBackgroundError: (err: unknown) => void }) {
    this.cache = new TokenCache(options.cacheTtlMs);
    this.lastUsed = new LastUsedRecorder(ScimToken, options.lastUsedIntervalMs, options.onBackgroundError);
  }

  async authenticate(header: string | undefined, now = new Date()): Promise<ScimCaller> {
    const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw unauthorized("Send the organization's SCIM token: 'Authorization: Bearer scim_…' (npm run tokens -- create-scim)");
    const token = match[1];
    if (!isWellFormedToken(token, SCIM_TOKEN_PREFIX)) {
      if (isWellFormedToken(token)) throw unauthorized('API tokens are not accepted on /scim/v2; use a SCIM token (npm run tokens -- create-scim)');
      if (isWellFormedToken(token, OTLP_TOKEN_PREFIX)) throw unauthorized('OTLP tokens are not accepted on /scim/v2; use a SCIM token (npm run tokens -- create-scim)');
      throw unauthorized('Malformed SCIM token');
    }
    const hash = hashToken(token);
    const caller = await this.cache.get(hash, now, () => load(hash));
    this.lastUsed.record(caller.tokenId, now);
    return caller;
  }
}

async function load(hash: string): Promise<ScimCaller> {
  // The primary: a revocation must bite within the cache time, which a lagging replica would not promise.
  const row = await ScimToken.findOne({ where: { token_hash: hash }, useMaster: true });
  if (!row || !hashesEqual(row.token_hash, hash)) throw unauthorized('Invalid SCIM token');
  if (!row.is_active) throw unauthorized('This SCIM token has been revoked');
  return { tokenId: row.id, organizationId: row.organization_id };
}
