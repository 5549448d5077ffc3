/** One definition of each measure for the writer and the backfill: db/rollups/pullRequestMeasures.ts. */
export { MEASURES, aiPullRequestSql, isAiPullRequest } from '../../../db/rollups/pullRequestMeasures';
export type { MeasureName, Measure, MergedPullRequest } from '../../../db/rollups/pullRequestMeasures';
