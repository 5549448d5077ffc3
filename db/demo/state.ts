import type { Inserter } from './inserter';
import type { Random } from './random';
import type { ScaleSpec } from './scales';
import type { AppCategory } from './words';

// In-memory state of the generation (generated records only; fixture users never enter these pools)


export interface GenUser {
  id: string;
  name: string;
  first: string;
  last: string;
  createdMs: number;
}

export interface OrgState {
  id: string;
  name: string;
  slug: string;
  createdMs: number;
  /** Generated members of this organization. */
  members: MemberState[];
  teams: TeamState[];
  apps: { id: string; provider: string; category: AppCategory; createdMs: number }[];
  gitApps: GitAppState[];
  /** Providers by app category, for interaction sources. */
  sources: Record<AppCategory, string[]>;
}

export interface MemberState {
  user: GenUser;
  org: OrgState;
  joinedMs: number;
  role: 'admin' | 'manager' | 'collaborator';
  /** Teams of this organization the user belongs to, with the time they joined. */
  teams: { team: TeamState; joinedMs: number }[];
}

export interface TeamState {
  id: string;
  org: OrgState;
  name: string;
  createdMs: number;
  fixture: boolean;
  /** Generated members (incl. generated managers). */
  members: { member: MemberState; role: 'member' | 'manager'; title: string; joinedMs: number }[];
}

export interface GitAppState {
  id: string;
  org: OrgState;
  provider: string;
  createdMs: number;
  /** Generated members bound to this git app: the author pool of its commits and pull requests. */
  authors: MemberState[];
  /** Their user names there, by user id (a Copilot report names members by their GitHub login). */
  logins: Map<string, string>;
  repos: RepoState[];
}

export interface RepoState {
  id: string;
  gitApp: GitAppState;
  createdMs: number;
  fixturePrCount: number;
}

export interface DeployedCommit {
  repo: RepoState;
  sha: string;
  atMs: number;
}

/** What every seeding step shares: where rows go, the root of the random streams, and the scale. */
export interface Seeding {
  ins: Inserter;
  root: Random;
  spec: ScaleSpec;
}
