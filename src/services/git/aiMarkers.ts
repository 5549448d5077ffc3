/** One list for the writers, the importer, the demo and migration 0011: db/rollups/aiMarkers.ts. */
export { AI_MARKERS, AI_MARKER_HINTS, hasAiMarker } from '../../../db/rollups/aiMarkers';
