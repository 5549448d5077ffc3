import request from 'supertest';
import { createOtlpToken } from '../../../src/auth/tokens/otlpTokens';
import type { TestApp } from '../harness';

/** A delta Sum point of an AI tool's metric at a past time, as its OTLP/JSON exporter would have sent it then. */
export interface PastPoint {
  service: 'claude-code' | 'gemini-cli';
  name: string;
  email: string;
  at: string;
  value: number;
  attributes?: Record<string, string>;
}

const nanos = (iso: string) => String(BigInt(Date.parse(iso)) * 1_000_000n);
const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

/**
 * Sends points to `/otlp/v1/metrics` in OTLP/JSON with a new token of the organization. The SDK's exporters stamp
 * the time of sending; metrics of past days need their bodies written out, in the same encoding.
 */
export async function sendPastPoints(t: TestApp, organizationId: string, points: PastPoint[]): Promise<void> {
  const token = (await createOtlpToken({ organizationId })).token;
  const body = {
    resourceMetrics: points.map((p, i) => ({
      resource: { attributes: [attribute('service.name', p.service)] },
      scopeMetrics: [
        {
          scope: { name: p.service === 'claude-code' ? 'com.anthropic.claude_code' : 'gemini-cli', version: '1.0.0' },
          metrics: [
            {
              name: p.name,
              sum: {
                aggregationTemporality: 1,
                isMonotonic: true,
                dataPoints: [
                  {
                    attributes: [attribute('user.email', p.email), attribute('session.id', `s-${i}`), ...Object.entries(p.attributes ?? {}).map(([k, v]) => attribute(k, v))],
                    startTimeUnixNano: nanos(new Date(Date.parse(p.at) - 3_600_000).toISOString()),
                    timeUnixNano: nanos(p.at),
                    asDouble: p.value,
                  },
                ],
              },
            },
          ],
        },
      ],
    })),
  };
  const res = await request(t.runtime.app).post('/otlp/v1/metrics').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(JSON.stringify(body));
  if (res.status !== 200 || res.body.partialSuccess?.rejectedDataPoints) throw new Error(`OTLP: ${res.status} ${JSON.stringify(res.body)}`);
}
