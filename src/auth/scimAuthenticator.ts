import { ScimToken } from '../../db/models';
import { LastUsedRecorder } from './lastUsed';
import { hashesEqual, hashToken, isWellFormedToken, SCIM_TOKEN_PREFIX } from './tokenFormat';
import { unauthenticated } from '../errors';

/** Who is provisioning: one organization's identity provider, through one SCIM token. */
export interface ScimCaller {
  tokenId: string;
  organizationId: string;
}

const unauthorized = unauthenticated;

interface Cached {
  caller: ScimCaller;
  until: number;
}

/**
 * SCIM tokens (DESIGN §10) on `/scim/v2` only; API tokens are refused here as SCIM tokens are on `/v1`. A
 * revoked token stops working within the cache time (5 s) on every instance, like API tokens.
 */
export class ScimAuthenticator {
  private readonly cache = new Map<string, Cached>();
  private readonly lastUsed: LastUsedRecorder;

  constructor(private readonly options: { cacheTtlMs: number; lastUsedIntervalMs: number; onBackgroundError: (err: unknown) => void }) {
    this.lastUsed = new LastUsedRecorder(ScimToken, options.lastUsedIntervalMs, options.onBackgroundError);
  }

  async authenticate(header: string | undefined, now = new Date()): Promise<ScimCaller> {
    const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw unauthorized("Send the organization's SCIM token: 'Authorization: Bearer scim_…' (npm run tokens -- create-scim)");
    const token = match[1];
    if (!isWellFormedToken(token, SCIM_TOKEN_PREFIX)) {
      if (isWellFormedToken(token)) throw unauthorized('API tokens are not accepted on /scim/v2; use a SCIM token (npm run tokens -- create-scim)');
      throw unauthorized('Malformed SCIM token');
    }
    const hash = hashToken(token);
    let entry = this.cache.get(hash);
    if (!entry || entry.until <= now.getTime()) {
      // The primary: a revocation must bite within the cache time, which a lagging replica would not promise.
      const row = await ScimToken.findOne({ where: { token_hash: hash }, useMaster: true });
      if (!row || !hashesEqual(row.token_hash, hash)) throw unauthorized('Invalid SCIM token');
      if (!row.is_active) throw unauthorized('This SCIM token has been revoked');
      entry = { caller: { tokenId: row.id, organizationId: row.organization_id }, until: now.getTime() + this.options.cacheTtlMs };
      if (this.options.cacheTtlMs > 0) {
        if (this.cache.size >= 1_000) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(hash, entry);
      }
    }
    this.lastUsed.record(entry.caller.tokenId, now);
    return entry.caller;
  }
}
