import { DASHBOARD_CATALOG } from './fixtures/dashboardViews';
import { Random } from './random';
import { GenUser, OrgState } from './state';
import { AppCategory, BUG_SYMPTOMS, EPIC_THEMES, OBJECTS, VERBS } from './words';

/** Generated names, identifiers and messages. */

export function slugify(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '');
}

export const DEFAULT_SOURCE: Record<AppCategory, string> = { git: 'github', chat: 'slack', issues: 'jira' };

export function rank(org: OrgState, category: AppCategory): number {
  if (category === 'chat' && org.sources.chat.length === 0) return 0;
  if (category === 'issues' && org.sources.issues.length === 0) return 0;
  return 1;
}

export function catalogName(key: string): string {
  return DASHBOARD_CATALOG.find((e) => e.key === key)?.name ?? key;
}

export function externalUserId(rng: Random, provider: string, user: GenUser, org: OrgState): string {
  switch (provider) {
    case 'slack':
      return 'U' + rng.chars(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    case 'msteams': {
      const h = rng.hex(32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    case 'jira':
      return '5b' + rng.hex(22);
    case 'github':
    case 'gitlab':
    case 'bitbucket':
      return String(rng.int(100_000, 99_999_999));
    default:
      return rng.hex(16);
  }
}

export function gitUsername(rng: Random, user: GenUser): string {
  const first = slugify(user.first);
  const last = slugify(user.last);
  const base = rng.pick([`${first}${last}`, `${first}-${last}`, `${first[0]}${last}`, `${first}${last[0]}`]);
  return rng.chance(0.5) ? `${base}${rng.int(1, 999)}` : base;
}

export function commitMessage(rng: Random): string {
  const r = rng.float();
  if (r < 0.06) return `Merge branch '${rng.pick(['main', 'develop', 'release'])}' into ${rng.pick(['feature', 'fix', 'chore'])}/${slugify(rng.pick(OBJECTS))}`;
  if (r < 0.1) return `Bump ${rng.pick(['express', 'lodash', 'react', 'typescript', 'eslint', 'jest', 'axios', 'zod'])} from ${rng.int(1, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)} to ${rng.int(1, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)}`;
  const msg = `${rng.pick(VERBS)} ${rng.pick(OBJECTS)}`;
  return rng.chance(0.3) ? `${msg} (#${rng.int(1, 4000)})` : msg;
}

/** Most pull requests are small; a few are large. */
export function pullRequestSize(rng: Random): { additions: number; deletions: number } {
  const additions = Math.round(5 + 2000 * rng.float() ** 3);
  return { additions, deletions: Math.round(additions * rng.float() * 0.6) };
}

export function prTitle(rng: Random): string {
  const prefix = rng.chance(0.3) ? `${rng.pick(['feat', 'fix', 'chore', 'refactor', 'docs', 'perf'])}: ` : '';
  return `${prefix}${rng.pick(VERBS)} ${rng.pick(OBJECTS)}`;
}

export function taskTitle(rng: Random, type: 'story' | 'bug' | 'task' | 'epic'): string {
  const object = rng.pick(OBJECTS);
  switch (type) {
    case 'epic':
      return rng.pick(EPIC_THEMES);
    case 'bug':
      return `${object[0].toUpperCase()}${object.slice(1)} ${rng.pick(BUG_SYMPTOMS)}`;
    case 'story':
      return `As a user I can use the new ${object}`;
    default:
      return `${rng.pick(VERBS)} ${object}`;
  }
}
