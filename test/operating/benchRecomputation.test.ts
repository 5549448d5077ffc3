import { botGlobFor, NO_ONE, RECOMPUTATION_ROW_PATH } from '../../scripts/bench/recomputation';
import { recomputationTable } from '../../scripts/bench/report';
import { matchesFilters } from '../../scripts/bench/requests';

/** The recomputation row of `npm run bench` (issue 60): what it sets, how it is selected, and its table. */

const selected = (...filters: string[]) => matchesFilters({ path: RECOMPUTATION_ROW_PATH, base: RECOMPUTATION_ROW_PATH }, filters);

test('selected by --filter as the other rows are: by what its name holds', () => {
  expect(selected()).toBe(true);
  expect(selected('recomputation')).toBe(true);
  expect(selected('metrics-settings')).toBe(true);
  expect(selected('history', '--bots')).toBe(true);
  expect(selected('history')).toBe(false);
  expect(selected('/v1/')).toBe(false);
});

test('the bots set: a glob of a stored author login\'s first characters, else a login that matches none', () => {
  expect(botGlobFor('Octocat')).toBe('oct*');
  expect(botGlobFor('al')).toBe('al*');
  expect(botGlobFor('a.b-c')).toBe('a.b*');
  // Nothing a glob or the CLI's comma-separated list would read otherwise.
  expect(botGlobFor('*x')).toBe(NO_ONE);
  expect(botGlobFor(undefined)).toBe(NO_ONE);
  expect(botGlobFor('')).toBe(NO_ONE);
});

test('its table: the set and the put back, each with the pull requests recomputed, seconds, their rate and peak RSS', () => {
  const table = recomputationTable({
    path: RECOMPUTATION_ROW_PATH,
    pullRequests: 250_000,
    set: { bots: 'oct*', seconds: 125, rssPeakMb: 180.4 },
    putBack: { bots: 'none', seconds: 100, rssPeakMb: 171.6 },
  });
  expect(table.split('\n')).toEqual([
    '| recomputation | --bots | pull requests recomputed | seconds | pull requests/s | peak RSS |',
    '|---|---|--:|--:|--:|--:|',
    `| \`${RECOMPUTATION_ROW_PATH}\`: set | \`oct*\` | 250,000 | 125.0 | 2000 | 180 MB |`,
    `| \`${RECOMPUTATION_ROW_PATH}\`: put back | \`none\` | 250,000 | 100.0 | 2500 | 172 MB |`,
  ]);
});
