import { Commit } from '../../../db/models';
import { activityFigures } from './activity';
import { doraFigures } from './dora';
import { flowFigures } from './flow';
import { pullRequestFigures } from './pullRequests';
import type { MetricScope } from './scope';
import { MetricSql } from './sql';
import { day, MetricWindow } from './window';

export { organizationScope, teamScope } from './scope';
export type { MetricScope } from './scope';

export const METRICS = { dora: doraFigures, pullRequests: pullRequestFigures, flow: flowFigures, activity: activityFigures };
export type MetricKind = keyof typeof METRICS;

/** A metric's payload (DESIGN §14): what it covers, its window, and its figures, computed in the database. */
export async function computeMetric<K extends MetricKind>(kind: K, scope: MetricScope, window: MetricWindow, now = new Date()) {
  const q = new MetricSql(Commit.sequelize!, scope, window, now);
  const figures = (await METRICS[kind](q)) as Awaited<ReturnType<(typeof METRICS)[K]>>;
  return {
    scope: { organization_id: scope.organizationId, team_id: scope.teamId },
    from: day(window.from),
    to: day(new Date(window.before.getTime() - 1)),
    interval: window.interval ?? null,
    ...figures,
  };
}
