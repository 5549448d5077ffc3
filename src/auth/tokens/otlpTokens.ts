import { randomBytes } from 'node:crypto';
import { OrganizationMembership, OtlpToken, User } from '../../../db/models';
import { generateToken, hashesEqual, hashToken, OTLP_TOKEN_PREFIX, tokenPreview } from '../tokenFormat';
import { conditions } from '../../access/conditions';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import { changesOf, findOrganization, findUser, OTLP_TOKEN_ID_PREFIX, TokenInputError } from './common';

/**
 * An active membership of an active user: who may be bound to an OTLP token, at creation and at every use. A user
 * deactivated everywhere stops sending, as their API tokens stop. `useMaster`: a removal must bite within the
 * authenticator's cache time, which a lagging replica would not promise.
 */
export async function isActiveMember(organizationId: string, userId: string, options: { useMaster?: boolean } = {}): Promise<boolean> {
  const where = { organization_id: organizationId, user_id: userId, ...conditions.activeMembership };
  const user = { model: User, as: 'user', where: { is_active: true }, attributes: [] };
  return (await OrganizationMembership.count({ where, include: [user], useMaster: options.useMaster ?? false })) > 0;
}

/** The bound user of an OTLP token: only an active member speaks for the organization (suspended ones do not). */
async function findOtlpUser(ref: string, organizationId: string): Promise<User> {
  const user = await findUser(ref);
  if (!(await isActiveMember(organizationId, user.id))) {
    throw new TokenInputError(`User ${user.id} is not an active member of organization '${organizationId}'`);
  }
  return user;
}

/**
 * An OTLP token sends one organization's telemetry to `/otlp` only (docs/telemetry.md); bound to a user, everything it
 * sends is that member's. Printed once and stored as its SHA-256 hash; its id starts with `otk_`, which `revoke` reads.
 */
export async function createOtlpToken(
  input: { organizationId: string; user?: string; name?: string; actor?: Actor },
  now = new Date(),
): Promise<{ id: string; token: string; user_id: string | null }> {
  const organization = await findOrganization(input.organizationId);
  const user = input.user === undefined ? null : await findOtlpUser(input.user, organization.id);
  const token = generateToken(OTLP_TOKEN_PREFIX);
  const id = `${OTLP_TOKEN_ID_PREFIX}${randomBytes(10).toString('hex')}`;
  const name = input.name ?? 'OTLP token';
  await changesOf().run(async ({ transaction, audit }) => {
    await OtlpToken.create(
      {
        id,
        organization_id: organization.id,
        user_id: user?.id ?? null,
        name,
        token_hash: hashToken(token),
        preview: tokenPreview(token),
        is_active: true,
        last_used_at: null,
        revoked_at: null,
        created_at: now,
      },
      { transaction },
    );
    audit({ organizationId: organization.id, actor: input.actor ?? OPERATOR, action: 'otlp_token.created', target: { type: 'otlp_token', id }, details: { name, user_id: user?.id ?? null } });
  });
  return { id, token, user_id: user?.id ?? null };
}

export type OtlpTokenCheck = { ok: true; id: string; userId: string | null } | { ok: false; refusal: string };

/**
 * Whether `token` may go into the organization's managed settings: only a token that `/otlp` would accept for
 * that organization. Looked up by its hash, so no other token is ever read or shown.
 */
export async function checkOtlpToken(token: string, organizationId: string): Promise<OtlpTokenCheck> {
  const hash = hashToken(token);
  const row = await OtlpToken.findOne({ where: { token_hash: hash } });
  if (!row || !hashesEqual(row.token_hash, hash)) return { ok: false, refusal: 'No OTLP token matches --token (create one with create-otlp)' };
  if (!row.is_active) return { ok: false, refusal: `--token is OTLP token ${row.id}, which has been revoked` };
  if (row.organization_id !== organizationId) {
    return { ok: false, refusal: `--token is OTLP token ${row.id} of another organization, not of '${organizationId}'` };
  }
  if (row.user_id && !(await isActiveMember(organizationId, row.user_id))) {
    return { ok: false, refusal: `--token is OTLP token ${row.id}, whose user ${row.user_id} is no longer an active member of '${organizationId}'` };
  }
  return { ok: true, id: row.id, userId: row.user_id };
}

