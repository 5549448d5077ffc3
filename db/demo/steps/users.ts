import { FIXTURE_USERS } from '../fixtures/users';
import { Row } from '../inserter';
import { DAY_MS } from '../random';
import { GenUser, MemberState, OrgState, Seeding } from '../state';
import { slugify } from '../text';
import { createdAt, END_MS, HOUR, toDate } from '../time';
import { FIRST_NAMES, LAST_NAMES } from '../words';

/** Users and which organizations they join; returns each user's fields that membership rows carry. */
export async function seedUsers({ ins, root, spec }: Seeding, orgs: OrgState[]): Promise<(userId: string) => Row> {
  const [acme, globex] = orgs;
  const rngUser = root.fork('users');
  const emailCounts = new Map<string, number>();
  // SCIM name parts as an identity provider would have sent them (db/models/people.ts).
  const nameParts = (given: string, family: string) => ({ given_name: given, family_name: family, formatted_name: `${given} ${family}` });
  const userRows: Row[] = FIXTURE_USERS.map((u) => {
    const [given, ...family] = u.name.split(' ');
    return { ...u, ...nameParts(given, family.join(' ')), created_at: toDate(u.created_at) };
  });
  const addMember = (user: GenUser, org: OrgState, joinedMs: number): MemberState => {
    const m: MemberState = { user, org, joinedMs, role: 'collaborator', teams: [] };
    org.members.push(m);
    return m;
  };
  for (const org of orgs) {
    const n = org === acme ? spec.usersAcme : org === globex ? spec.usersGlobex : spec.usersPerExtraOrg;
    let previousMs = -1;
    for (let i = 0; i < n; i++) {
      const first = rngUser.pick(FIRST_NAMES);
      const last = rngUser.pick(LAST_NAMES);
      const local = `${slugify(first)}.${slugify(last)}`;
      const key = `${local}@${org.slug}.test`;
      const seen = (emailCounts.get(key) ?? 0) + 1;
      emailCounts.set(key, seen);
      const email = seen === 1 ? key : `${local}${seen}@${org.slug}.test`;
      const createdMs =
        previousMs >= 0 && rngUser.chance(spec.tieChance)
          ? previousMs
          : createdAt(rngUser, org.createdMs + HOUR, END_MS - 60 * DAY_MS);
      previousMs = createdMs;
      const user: GenUser = { id: rngUser.id('usr_'), name: `${first} ${last}`, first, last, createdMs };
      userRows.push({ id: user.id, name: user.name, email, ...nameParts(first, last), is_active: !rngUser.chance(0.02), created_at: new Date(createdMs) });
      addMember(user, org, createdMs);
      if (orgs.length > 1 && rngUser.chance(spec.secondOrgShare)) {
        let other = rngUser.pick(orgs);
        if (other === org) other = orgs[(orgs.indexOf(org) + 1) % orgs.length];
        addMember(user, other, createdAt(rngUser, Math.max(createdMs, other.createdMs), END_MS - 30 * DAY_MS));
      }
    }
  }
  await ins.insertAll('users', userRows);
  // Membership rows carry their user's sort fields (migration 0002).
  const userById = new Map(userRows.map((u) => [u.id as string, u]));
  const memberSortFields = (userId: string): Row => {
    const u = userById.get(userId)!;
    return { user_name: u.name, user_email: u.email, user_created_at: u.created_at };
  };
  userRows.length = 0;
  return memberSortFields;
}
