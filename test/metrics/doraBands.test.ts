import { Band, failureRateBand, frequencyBand, leadTimeBand, restoreBand, reworkRateBand } from '../../src/services/metrics/reading/figures';

/**
 * The bands are the software delivery performance clusters of DORA's 2024 report (docs/metrics.md#bands), each
 * figure at and beside the bounds the report gives.
 */
test('deployment frequency: several a day elite, at least weekly high, at least monthly (30 days) medium', () => {
  expect([3, 1.01, 1, 1 / 7, 1 / 7 - 0.001, 1 / 30, 1 / 30 - 0.001, 0].map(frequencyBand)).toEqual(['elite', 'elite', 'high', 'high', 'medium', 'medium', 'low', 'low']);
});

test('change lead time: under a day elite, under a week high, under 30 days medium, hours', () => {
  expect([0, 23.99, 24, 167.99, 168, 719.99, 720, 4400, null].map(leadTimeBand)).toEqual(['elite', 'elite', 'high', 'high', 'medium', 'medium', 'low', 'low', null]);
});

test("change fail rate: the clusters' 5 %, 20 % (high), 10 % (medium), 40 %: a better rate never a worse band", () => {
  expect([0, 0.05, 0.0501, 0.1, 0.2, 0.2001, 0.4, 1, null].map(failureRateBand)).toEqual(['elite', 'elite', 'high', 'high', 'high', 'low', 'low', 'low', null]);
});

test('failed deployment recovery time: under an hour elite, under a day high (and medium), else low, hours', () => {
  expect([0, 0.99, 1, 23.99, 24, 167.99, 720, null].map(restoreBand)).toEqual(['elite', 'elite', 'high', 'high', 'low', 'low', 'low', null]);
});

test("rework rate: no clusters of its own, the change fail rate's", () => {
  expect([0.05, 0.15, 0.25, null].map(reworkRateBand)).toEqual(['elite', 'high', 'low', null]);
});

test('every key: the band never worsens as the figure improves', () => {
  const order: (Band | null)[] = ['elite', 'high', 'medium', 'low'];
  const steps = Array.from({ length: 2001 }, (_, i) => i / 2000);
  const worsening = (bands: (Band | null)[]) => bands.some((band, i) => i > 0 && order.indexOf(band) < order.indexOf(bands[i - 1]));
  // Rising failure rates and durations should only worsen; a rising frequency only improve.
  expect(worsening(steps.map(failureRateBand))).toBe(false);
  expect(worsening(steps.map((s) => leadTimeBand(s * 2000)))).toBe(false);
  expect(worsening(steps.map((s) => restoreBand(s * 200)))).toBe(false);
  expect(worsening(steps.map((s) => frequencyBand(s * 3)).reverse())).toBe(false);
});
