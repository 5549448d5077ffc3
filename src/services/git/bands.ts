/** The bands the writers and the backfills put values in alike: db/rollups/bands.ts. */
export { Bands, durationBands, sizeBands } from '../../../db/rollups/bands';
