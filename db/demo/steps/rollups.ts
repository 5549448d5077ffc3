import { QueryInterface } from 'sequelize';
import { fillAuthorDays } from '../../rollups/authorDays';
import { fillMemberActiveYears } from '../../rollups/memberActiveYears';
import { fillAuthorRepositories, fillCommitDays } from '../../rollups/commits';
import { fillAiEvidence } from '../../rollups/aiEvidence';
import { fillLeadTimes, markRework, markShippedChanges } from '../../rollups/deployments';
import { fillRecoveries } from '../../rollups/recoveries';
import { fillReversals } from '../../rollups/reverts';
import { fillInteractionDays } from '../../rollups/interactionDays';
import { fillFirstReviews, fillPeerReviews, fillPullRequestMonths, fillPullRequestReviewers, fillPullRequestSamples, markAiPullRequests } from '../../rollups/pullRequests';

/**
 * What the writers would have kept beside the rows, had the rows come through them: built whole from the stored
 * rows, in the order each builder needs the one before it (AI marks before the pull requests' and deployments'
 * marks, blame before recoveries, shipped changes before reversals, samples before their months).
 */
export async function rebuildRollups(qi: QueryInterface): Promise<void> {
  await fillAiEvidence(qi);
  await fillFirstReviews(qi);
  await markAiPullRequests(qi, 'evidence');
  await fillAuthorRepositories(qi);
  await markShippedChanges(qi, 'each', 'evidence');
  await markRework(qi, 'each');
  await fillRecoveries(qi);
  await fillCommitDays(qi, 'evidence');
  await fillLeadTimes(qi, 'each');
  await fillReversals(qi);
  await fillPullRequestReviewers(qi);
  await fillPullRequestSamples(qi);
  await fillPullRequestMonths(qi);
  await fillPeerReviews(qi);
  await fillAuthorDays(qi);
  await fillMemberActiveYears(qi, 'stored rows');
  await fillInteractionDays(qi);
}
