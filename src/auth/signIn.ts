import { Op } from 'sequelize';
import { LoginLink, OrganizationMembership, User } from '../../db/models';
import { conditions } from '../access/conditions';
import { normalizeEmail } from '../services/people/profile';
import { generateToken, hashToken, isWellFormedToken, LOGIN_LINK_PREFIX } from './tokenFormat';

/** Who may sign in: an active user with at least one active membership, found by e-mail (docs/settings.md). */
export type SignInCandidate = { ok: true; userId: string } | { ok: false; refusal: string };

export async function findSignInUser(email: string): Promise<SignInCandidate> {
  const user = await User.findOne({ where: { email: normalizeEmail(email) }, attributes: ['id', 'is_active'], useMaster: true });
  if (!user) return { ok: false, refusal: `No account uses the e-mail address ${email}. Ask an administrator of your organization to add you (through your identity provider).` };
  return mayUserSignIn(user, email);
}

async function mayUserSignIn(user: Pick<User, 'id' | 'is_active'>, email: string): Promise<SignInCandidate> {
  if (!user.is_active) return { ok: false, refusal: `The account of ${email} is deactivated. Ask an administrator of your organization to reactivate it.` };
  const memberships = await OrganizationMembership.count({ where: { user_id: user.id, ...conditions.activeMembership }, useMaster: true });
  if (memberships === 0) return { ok: false, refusal: `The account of ${email} is not an active member of any organization.` };
  return { ok: true, userId: user.id };
}

/** A one-time sign-in link lives this long. */
export const LOGIN_LINK_MS = 10 * 60_000;

/**
 * A link that signs a user in once, within ten minutes, for the embedded default where no identity provider is
 * configured (`npm run tokens -- login-link`). Only its token's SHA-256 is stored.
 */
export async function createLoginLink(userId: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const token = generateToken(LOGIN_LINK_PREFIX);
  const expiresAt = new Date(now.getTime() + LOGIN_LINK_MS);
  // Links that can no longer be used go as new ones are made: the table holds about ten minutes' links.
  await LoginLink.destroy({ where: { expires_at: { [Op.lte]: now } } });
  await LoginLink.create({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: expiresAt, used_at: null });
  return { token, expiresAt };
}

/**
 * Uses a link: of two concurrent uses, one wins; a used, expired or unknown link signs no one in (undefined). Whose
 * it is may still not sign in (deactivated since).
 */
export async function redeemLoginLink(token: string, now = new Date()): Promise<SignInCandidate | undefined> {
  if (!isWellFormedToken(token, LOGIN_LINK_PREFIX)) return undefined;
  const hash = hashToken(token);
  const [used] = await LoginLink.update({ used_at: now }, { where: { token_hash: hash, used_at: { [Op.is]: null }, expires_at: { [Op.gt]: now } } });
  if (used !== 1) return undefined;
  const link = await LoginLink.findByPk(hash, { useMaster: true });
  const user = link && (await User.findByPk(link.user_id, { attributes: ['id', 'email', 'is_active'], useMaster: true }));
  return user ? mayUserSignIn(user, user.email) : { ok: false, refusal: 'The account this link was made for no longer exists.' };
}
