import { Op, Transaction } from 'sequelize';
import { User, UserEmail } from '../../../db/models';
import { conflict } from '../../errors';

/** SCIM name parts as sent; null where the identity provider sent none. */
export interface NameParts {
  givenName: string | null;
  familyName: string | null;
  formatted: string | null;
}

/** One e-mail address as sent: the value (stored lower-cased), its type (`work`, `home`, …) and whether it is primary. */
export interface EmailAddress {
  value: string;
  type: string | null;
  primary: boolean;
}

/**
 * E-mail addresses identify users (docs/scim.md: `userName` is the e-mail, case-insensitive, unique). They are
 * stored lower-cased, so equality is the same on every database and collation.
 */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Given and family names of a name that came without parts: its first word and the rest, as always answered. */
export function splitName(name: string): { givenName: string; familyName: string } {
  const trimmed = name.trim();
  const space = trimmed.indexOf(' ');
  return space < 0 ? { givenName: trimmed, familyName: '' } : { givenName: trimmed.slice(0, space), familyName: trimmed.slice(space + 1).trim() };
}

/** The columns a profile's name parts are stored in: as sent, or derived from the name when no part was sent. */
/** The columns a user's name parts are kept in. */
export const NAME_PART_COLUMNS = ['given_name', 'family_name', 'formatted_name'] as const;

export function namePartColumns(name: string, parts: NameParts | undefined): Pick<User, (typeof NAME_PART_COLUMNS)[number]> {
  const sent = parts && (parts.givenName !== null || parts.familyName !== null || parts.formatted !== null);
  if (!sent) {
    const derived = splitName(name);
    return { given_name: derived.givenName, family_name: derived.familyName, formatted_name: name };
  }
  return { given_name: parts.givenName, family_name: parts.familyName, formatted_name: parts.formatted };
}

/** The addresses to store: lower-cased, each once (the first mention wins). None stored means `users.email` alone. */
export function emailRows(userId: string, emails: readonly EmailAddress[] | undefined): { user_id: string; position: number; email: string; type: string | null; is_primary: boolean }[] {
  const seen = new Set<string>();
  const rows = [];
  for (const e of emails ?? []) {
    const email = normalizeEmail(e.value);
    if (seen.has(email)) continue;
    seen.add(email);
    rows.push({ user_id: userId, position: rows.length, email, type: e.type, is_primary: e.primary });
  }
  return rows;
}

/** Whether the stored addresses differ from these rows. */
export function emailsDiffer(stored: readonly UserEmail[], rows: ReturnType<typeof emailRows>): boolean {
  if (stored.length !== rows.length) return true;
  const ordered = [...stored].sort((a, b) => a.position - b.position);
  return rows.some((r, i) => r.email !== ordered[i].email || r.type !== ordered[i].type || r.is_primary !== Boolean(ordered[i].is_primary));
}

/** Refuses addresses that are another user's, as their userName or one of their e-mails. */
export async function assertEmailsFree(userId: string | undefined, addresses: string[], transaction: Transaction): Promise<void> {
  if (addresses.length === 0) return;
  const others = userId === undefined ? {} : { [Op.ne]: userId };
  const [asUserName, asEmail] = await Promise.all([
    User.findOne({ where: { email: { [Op.in]: addresses }, ...(userId === undefined ? {} : { id: others }) }, attributes: ['email'], transaction }),
    UserEmail.findOne({ where: { email: { [Op.in]: addresses }, ...(userId === undefined ? {} : { user_id: others }) }, attributes: ['email'], transaction }),
  ]);
  const taken = asUserName?.email ?? asEmail?.email;
  if (taken) throw conflict(`The e-mail address '${taken}' is another user's`);
}

/** Replaces the user's stored addresses. */
export async function replaceEmails(userId: string, rows: ReturnType<typeof emailRows>, transaction: Transaction): Promise<void> {
  await UserEmail.destroy({ where: { user_id: userId }, transaction });
  if (rows.length) await UserEmail.bulkCreate(rows, { transaction });
}

export async function emailsOf(userIds: readonly string[], transaction?: Transaction): Promise<Map<string, UserEmail[]>> {
  const byUser = new Map<string, UserEmail[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await UserEmail.findAll({ where: { user_id: { [Op.in]: [...userIds] } }, order: [['user_id', 'ASC'], ['position', 'ASC']], transaction });
  for (const r of rows) byUser.get(r.user_id)?.push(r);
  return byUser;
}
