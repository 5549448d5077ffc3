import { TelemetrySpec } from './telemetry';

/** How much of each kind of data a scale generates; the fixtures come on top at every scale. */

export type DemoScale = 'tiny' | 'demo' | 'large';
export const DEMO_SCALES: readonly DemoScale[] = ['tiny', 'demo', 'large'];
export const DEFAULT_DEMO_SEED = 20240101;

export interface ScaleSpec {
  /** Generated organizations besides Acme and Globex. */
  extraOrgs: number;
  /** Generated users whose primary organization is Acme / Globex / each extra organization. */
  usersAcme: number;
  usersGlobex: number;
  usersPerExtraOrg: number;
  /** Share of generated users who also belong to a second organization. */
  secondOrgShare: number;
  /** Generated teams per organization (on top of the fixture teams). */
  teamsAcme: number;
  teamsGlobex: number;
  teamsPerExtraOrg: number;
  /** Share of team-assigned members who are in a second team of the same organization. */
  secondTeamShare: number;
  /** Apps / git apps per organization, fixture ones included. */
  appsPerOrg: readonly [number, number];
  gitAppsPerOrg: readonly [number, number];
  /** Repositories per git app (fixture ones included), plus one per `membersPerExtraRepo` organization members. */
  reposPerGitApp: readonly [number, number];
  membersPerExtraRepo: number;
  /** Generated rows (fixtures come on top). */
  commits: number;
  pullRequests: number;
  /** Share of generated commits that are deployed (a few deployments a week per active repository). */
  deployedCommitShare: number;
  tasks: number;
  interactions: number;
  /** Organization-visible views per organization, chance of a team view per team, private views per member. */
  orgViewsPerOrg: number;
  teamViewChance: number;
  privateViewsPerMember: number;
  /** Chance that a generated record reuses the previous created_at in its scope (a tie). */
  tieChance: number;
  /** Acme's members using AI coding tools (db/demo/telemetry.ts). */
  telemetry: TelemetrySpec;
}

export const SCALES: Record<DemoScale, ScaleSpec> = {
  tiny: {
    extraOrgs: 1,
    usersAcme: 14,
    usersGlobex: 5,
    usersPerExtraOrg: 4,
    secondOrgShare: 0.1,
    teamsAcme: 2,
    teamsGlobex: 2,
    teamsPerExtraOrg: 2,
    secondTeamShare: 0.2,
    appsPerOrg: [3, 3],
    gitAppsPerOrg: [1, 1],
    reposPerGitApp: [3, 3],
    membersPerExtraRepo: 0,
    commits: 45,
    pullRequests: 16,
    deployedCommitShare: 0.2,
    tasks: 23,
    interactions: 48,
    orgViewsPerOrg: 1,
    teamViewChance: 0.3,
    privateViewsPerMember: 0.1,
    tieChance: 0.15,
    telemetry: { claudeShare: 0.5, geminiShare: 0.1 },
  },
  demo: {
    extraOrgs: 8,
    usersAcme: 600,
    usersGlobex: 200,
    usersPerExtraOrg: 150,
    secondOrgShare: 0.08,
    teamsAcme: 8,
    teamsGlobex: 3,
    teamsPerExtraOrg: 3,
    secondTeamShare: 0.15,
    appsPerOrg: [3, 5],
    gitAppsPerOrg: [1, 3],
    reposPerGitApp: [3, 8],
    membersPerExtraRepo: 0,
    commits: 50_000,
    pullRequests: 5_000,
    deployedCommitShare: 0.06,
    tasks: 10_000,
    interactions: 50_000,
    orgViewsPerOrg: 3,
    teamViewChance: 0.7,
    privateViewsPerMember: 0.05,
    tieChance: 0.03,
    telemetry: { claudeShare: 0.55, geminiShare: 0.05 },
  },
  large: {
    extraOrgs: 18,
    usersAcme: 80_000,
    usersGlobex: 5_000,
    usersPerExtraOrg: 834,
    secondOrgShare: 0.08,
    teamsAcme: 3_200,
    teamsGlobex: 200,
    teamsPerExtraOrg: 33,
    secondTeamShare: 0.15,
    appsPerOrg: [4, 6],
    gitAppsPerOrg: [2, 4],
    reposPerGitApp: [5, 15],
    membersPerExtraRepo: 300,
    commits: 1_000_000,
    pullRequests: 100_000,
    deployedCommitShare: 0.04,
    tasks: 100_000,
    interactions: 500_000,
    orgViewsPerOrg: 5,
    teamViewChance: 0.5,
    privateViewsPerMember: 0.03,
    tieChance: 0.01,
    telemetry: { claudeShare: 0.05, geminiShare: 0.005 },
  },
};

export function isDemoScale(value: string): value is DemoScale {
  return (DEMO_SCALES as readonly string[]).includes(value);
}
