import { MetricSql } from '../../src/services/metrics/reading/sql';
import { ComputationSlots } from '../../src/services/metrics/computationSlots';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The metrics' work per process is bounded (src/services/metrics/computationSlots.ts): a few figures computed at once,
 * a few more waiting, and past both 503 with Retry-After at once, so a burst of requests for different windows can
 * neither grow the heap with the burst nor queue without end.
 */
describe('the slots', () => {
  const held = () => {
    let release: () => void = () => undefined;
    const done = new Promise<string>((resolve) => (release = () => resolve('done')));
    return { done, release };
  };

  test('two run, one waits for a slot and gets it when one ends; a fourth is refused at once', async () => {
    const slots = new ComputationSlots(2, 1);
    const [a, b, c] = [held(), held(), held()];
    const started: string[] = [];
    const run = (name: string, h: ReturnType<typeof held>) => slots.run(async () => (started.push(name), h.done));
    const answers = [run('a', a), run('b', b), run('c', c)];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    expect(slots.load).toEqual({ running: 2, waiting: 1 });
    await expect(slots.run(async () => 'd')).rejects.toMatchObject({ kind: 'unavailable', detail: { retryAfterSeconds: 5 } });
    a.release();
    await answers[0];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c']);
    expect(slots.load).toEqual({ running: 2, waiting: 0 });
    b.release();
    c.release();
    expect(await Promise.all(answers)).toEqual(['done', 'done', 'done']);
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  test('a computation that fails gives its slot back', async () => {
    const slots = new ComputationSlots(1, 0);
    await expect(slots.run(async () => Promise.reject(new Error('the database went away')))).rejects.toThrow('the database went away');
    expect(await slots.run(async () => 'next')).toBe('next');
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });
});

describe('through the Metrics API', () => {
  let t: TestApp;
  beforeAll(async () => {
    // METRICS_PORT: the Prometheus figures an operator watches (read here from the runtime's registry).
    t = await startTestApp({ METRICS_MAX_COMPUTATIONS: '1', METRICS_MAX_WAITING: '1', METRICS_PORT: '9464' });
  });
  afterAll(async () => t?.close());

  /** A metric's samples as the runtime's Prometheus registry holds them. */
  const prometheus = async (name: string) => (await t.runtime.metrics!.registry.getSingleMetric(name)!.get()).values.map(({ labels, value }) => ({ labels, value }));

  test('with one slot and one place in line, a third window asked at once is 503 with Retry-After; the other two are answered', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rows = MetricSql.prototype.rows;
    const spy = jest.spyOn(MetricSql.prototype, 'rows').mockImplementation(async function (this: MetricSql, ...args) {
      await released;
      return rows.apply(this, args) as never;
    });
    try {
      const token = await t.token();
      const ask = (from: string) => t.get(`/v1/metrics/ai-impact?organization_id=${DEMO.orgs.acme}&from=${from}`, token).then((res) => res);
      const first = ask(dayBefore(20));
      for (let i = 0; i < 200 && spy.mock.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const second = ask(dayBefore(21));
      await new Promise((r) => setTimeout(r, 100));
      const third = await ask(dayBefore(22));
      expect(third.status).toBe(503);
      expect(third.headers['retry-after']).toBe('5');
      expect(third.body).toEqual({ status: 'error', error: { code: 'SERVICE_UNAVAILABLE', message: 'Too many figures are being computed at the moment; ask again in 5 seconds' } });
      expect(await prometheus('metric_computations')).toEqual([
        { labels: { state: 'running' }, value: 1 },
        { labels: { state: 'waiting' }, value: 1 },
      ]);
      expect(await prometheus('metric_computations_refused_total')).toEqual([{ labels: {}, value: 1 }]);
      release();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      // Their turn over, a request is computed again.
      expect((await ask(dayBefore(22))).status).toBe(200);
    } finally {
      // A failed expectation above must not leave the held computations waiting for ever.
      release();
      spy.mockRestore();
    }
  });
});

const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
