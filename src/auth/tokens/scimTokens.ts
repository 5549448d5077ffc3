import { randomBytes } from 'node:crypto';
import { ScimToken } from '../../../db/models';
import { generateToken, hashToken, SCIM_TOKEN_PREFIX, tokenPreview } from '../tokenFormat';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import { changesOf, findOrganization, SCIM_TOKEN_ID_PREFIX } from './common';

/**
 * A SCIM token acts for one organization's identity provider on `/scim/v2` only (docs/architecture.md#writers); like an API
 * token it is printed once and stored as its SHA-256 hash. Its id starts with `stok_`, which `revoke` reads.
 */
export async function createScimToken(
  input: { organizationId: string; name?: string; actor?: Actor },
  now = new Date(),
): Promise<{ id: string; token: string }> {
  const organization = await findOrganization(input.organizationId);
  const token = generateToken(SCIM_TOKEN_PREFIX);
  const id = `${SCIM_TOKEN_ID_PREFIX}${randomBytes(10).toString('hex')}`;
  const name = input.name ?? 'SCIM token';
  await changesOf().run(async ({ transaction, audit }) => {
    await ScimToken.create(
      { id, organization_id: organization.id, name, token_hash: hashToken(token), preview: tokenPreview(token), is_active: true, last_used_at: null, revoked_at: null, created_at: now },
      { transaction },
    );
    audit({ organizationId: organization.id, actor: input.actor ?? OPERATOR, action: 'scim_token.created', target: { type: 'scim_token', id }, details: { name } });
  });
  return { id, token };
}

