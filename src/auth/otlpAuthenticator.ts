import { OtlpToken } from '../../db/models';
import { isActiveMember } from './tokens/otlpTokens';
import { LastUsedRecorder } from './lastUsed';
import { TokenCache } from './tokenCache';
import { hashesEqual, hashToken, isWellFormedToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX } from './tokenFormat';
import { unauthenticated } from '../errors';

/** Who is sending telemetry: one organization, through one OTLP token, on behalf of its bound user if any. */
export interface OtlpCaller {
  tokenId: string;
  organizationId: string;
  userId: string | null;
}

const unauthorized = unauthenticated;

/**
 * OTLP tokens (docs/telemetry.md) on `/otlp` only; API and SCIM tokens are refused here, each with a message naming the
 * token to use. A revoked token, or one whose user left the organization, stops working within the cache time
 * (5 s) on every instance, like the other tokens.
 */
export class OtlpAuthenticator {
  private readonly cache: TokenCache<OtlpCaller>;
  private readonly lastUsed: LastUsedRecorder;

  constructor(options: { cacheTtlMs: number; lastUsedIntervalMs: number; onBackgroundError: (err: unknown) => void }) {
    this.cache = new TokenCache(options.cacheTtlMs);
    this.lastUsed = new LastUsedRecorder(OtlpToken, options.lastUsedIntervalMs, options.onBackgroundError);
  }

  async authenticate(header: string | undefined, now = new Date()): Promise<OtlpCaller> {
    const hash = hashToken(wellFormedOtlpToken(header));
    const caller = await this.cache.get(hash, now, () => load(hash));
    this.lastUsed.record(caller.tokenId, now);
    return caller;
  }
}

/** The bearer token of the header when it has an OTLP token's shape; the other kinds are named, not just refused. */
function wellFormedOtlpToken(header: string | undefined): string {
  const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) {
    throw unauthorized(`Send the organization's OTLP token: OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer otlp_…" (npm run tokens -- create-otlp)`);
  }
  const token = match[1];
  if (isWellFormedToken(token, OTLP_TOKEN_PREFIX)) return token;
  if (isWellFormedToken(token)) throw unauthorized('API tokens are not accepted on /otlp; use an OTLP token (npm run tokens -- create-otlp)');
  if (isWellFormedToken(token, SCIM_TOKEN_PREFIX)) throw unauthorized('SCIM tokens are not accepted on /otlp; use an OTLP token (npm run tokens -- create-otlp)');
  throw unauthorized('Malformed OTLP token');
}

// The primary, not a replica: a revocation or a member's removal must bite within the cache time, which a lagging
// replica would not promise.
const PRIMARY = { useMaster: true } as const;

async function load(hash: string): Promise<OtlpCaller> {
  const row = await OtlpToken.findOne({ where: { token_hash: hash }, ...PRIMARY });
  // The lookup is by hash; the comparison keeps any later refactor from comparing secrets naively.
  if (!row || !hashesEqual(row.token_hash, hash)) throw unauthorized('Invalid OTLP token');
  if (!row.is_active) throw unauthorized('This OTLP token has been revoked');
  if (row.user_id && !(await isActiveMember(row.organization_id, row.user_id, PRIMARY))) {
    throw unauthorized('The user of this OTLP token is no longer a member of its organization');
  }
  return { tokenId: row.id, organizationId: row.organization_id, userId: row.user_id };
}
