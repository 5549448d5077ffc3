import { z } from 'zod';
import { Measure, MEASURES, MeasureName } from '../../../../db/rollups/pullRequestMeasures';

/**
 * Whether a draft's times run from when it became ready for review (docs/metrics.md#what-counts), as Swarmia and
 * LinearB measure them: no one is asked to review or merge a draft, so the days it sat as one are its author's, not
 * waiting on the team. The writers keep every merged pull request's times both ways (pullRequestMeasures.ts: `merge`
 * and `mergeFromReady`, …), so the setting picks one as the figures read and nothing is recomputed. Off by default:
 * the figures as they were before the setting.
 */
export const draftSettingsShape = {
  drafts_from_ready: z.boolean({ error: 'drafts_from_ready must be true or false' }).meta({
    description:
      'Whether time to merge, pickup time and time to approval of a pull request opened as a draft run from the last time it became ready for review before its merge, rather than from its opening. A pull request opened ready, or whose provider never said, is measured from its opening either way. Default: `false`.',
  }),
};

type DraftSettings = { [K in keyof typeof draftSettingsShape]: z.infer<(typeof draftSettingsShape)[K]> };

export const DEFAULT_DRAFT_SETTINGS: DraftSettings = { drafts_from_ready: false };

/** The measures that run from the opening, each with its twin from ready for review. */
const FROM_READY: Partial<Record<MeasureName, MeasureName>> = { merge: 'mergeFromReady', pickup: 'pickupFromReady', approval: 'approvalFromReady' };

/** The measure the figures read for `name` under these settings. */
export const measureRead = (settings: DraftSettings, name: MeasureName): Measure => MEASURES[(settings.drafts_from_ready && FROM_READY[name]) || name];
