import { Transaction } from 'sequelize';
import { AuthorRepository, Repository } from '../../../../db/models';
import { authorDaysSql } from '../../../../db/rollups/authorDays';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { chunks } from '../../people/memberEmails';

/**
 * The days each member of an organization committed on, each with the member's previous such day (author_days),
 * so that the distinct authors of a window are counted, not deduplicated: an author is active in [from, before)
 * exactly when one of their days there has its previous day before `from` (or none). A year of the large
 * organization has 56k distinct authors: counting their first days is one index range, where COUNT(DISTINCT)
 * over its commits took 150 ms cold. Kept by the commit writer as it stores commits (a day added between two
 * others moves the later one's previous day), and counted again for a leaving repository's authors.
 */
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export async function addToAuthorDays(transaction: Transaction, repository: Pick<Repository, 'organization_id'>, commits: { author_id: string | null; created_at: Date }[]): Promise<void> {
  const added = new Map<string, Set<string>>();
  for (const c of commits) if (c.author_id) added.set(c.author_id, (added.get(c.author_id) ?? new Set()).add(dayOf(c.created_at)));
  if (added.size === 0) return;
  const sql = new ChangeSql(transaction);
  const known = new Map<string, Map<string, string | null>>();
  // Locking reads, in key order, which read what others committed: a concurrent change adding days of the same
  // author waits for these rows, or (an author with none yet) for the gap they would go in; a change that then loses
  // a deadlock to it runs again from the start (persistence/changes/change.ts).
  for (const users of chunks([...added.keys()].sort())) {
    const rows = await sql.select<{ user_id: string; day: string | Date; previous_day: string | Date | null }>(
      `SELECT user_id, day, previous_day FROM author_days WHERE organization_id = :organization_id AND user_id IN (:users) ORDER BY user_id, day${sql.forUpdate}`,
      { organization_id: repository.organization_id, users },
    );
    for (const r of rows) known.set(r.user_id, (known.get(r.user_id) ?? new Map()).set(dayText(r.day), r.previous_day === null ? null : dayText(r.previous_day)));
  }
  const changed: { organization_id: string; user_id: string; day: string; previous_day: string | null }[] = [];
  for (const [userId, days] of [...added].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const stored = known.get(userId) ?? new Map<string, string | null>();
    let previous: string | null = null;
    for (const day of [...new Set([...stored.keys(), ...days])].sort()) {
      if (!stored.has(day) || stored.get(day) !== previous) changed.push({ organization_id: repository.organization_id, user_id: userId, day, previous_day: previous });
      previous = day;
    }
  }
  await sql.upsert('author_days', ['organization_id', 'user_id', 'day'], ['previous_day'], changed);
}

/** A repository's authors, before it leaves with its commits. */
export async function authorsOf(transaction: Transaction, repositoryId: string): Promise<string[]> {
  return (await AuthorRepository.findAll({ where: { repository_id: repositoryId }, attributes: ['user_id'], transaction })).map((r) => r.user_id).sort();
}

/** After commits left: these authors' days of the organization, counted again from its commits. */
export async function recountAuthorDays(transaction: Transaction, organizationId: string, userIds: string[]): Promise<void> {
  const sql = new ChangeSql(transaction);
  for (const users of chunks(userIds)) {
    const replacements = { organization_id: organizationId, users };
    await sql.run('DELETE FROM author_days WHERE organization_id = :organization_id AND user_id IN (:users)', replacements);
    await sql.run(`INSERT INTO author_days (organization_id, user_id, day, previous_day) ${authorDaysSql(sql.mysql, 'c.organization_id = :organization_id AND c.author_id IN (:users)')}`, replacements);
  }
}

/** A DATEONLY value as the dialects hand it back (text, or a Date at midnight UTC). */
const dayText = (d: string | Date) => (typeof d === 'string' ? d.slice(0, 10) : dayOf(d));
