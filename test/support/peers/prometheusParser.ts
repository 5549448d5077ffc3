import { execFileSync, spawnSync } from 'node:child_process';

/**
 * The Prometheus text format read by the official Python client's parser (Debian's python3-prometheus-client: the
 * JavaScript parsers on npm lose the labels of histograms). `.ci/run` installs it; without it (and without
 * REQUIRE_PROMETHEUS_PARSER=1) the tests that need it are skipped, saying what to install.
 */
const PYTHON = process.env.PROMETHEUS_PARSER_PYTHON ?? '/usr/bin/python3';
const READ = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
value = lambda v: v if math.isfinite(v) else str(v)
json.dump([{"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
           for f in text_string_to_metric_families(sys.stdin.read())], sys.stdout)
`;

export const HAS_PROMETHEUS_PARSER = spawnSync(PYTHON, ['-c', 'import prometheus_client.parser']).status === 0;

export interface MetricFamily {
  /** Counters without their `_total`, as the parser names families. */
  name: string;
  type: string;
  /** NaN and the infinities as the strings `nan`, `inf` and `-inf` (JSON has no such numbers). */
  samples: { name: string; labels: Record<string, string>; value: number | string }[];
}

export function parseExposition(text: string): MetricFamily[] {
  return JSON.parse(execFileSync(PYTHON, ['-c', READ], { input: text, encoding: 'utf8' })) as MetricFamily[];
}

/** `describe` for a file that reads the text format: skipped, with what to install, where the parser is missing. */
export function describeWithPrometheusParser(file: string): jest.Describe {
  if (!HAS_PROMETHEUS_PARSER && process.env.REQUIRE_PROMETHEUS_PARSER !== '1') {
    console.warn(`${file}: no Prometheus parser (${PYTHON} with prometheus_client); tests skipped. Install it with \`apt-get install python3-prometheus-client\`.`);
    return describe.skip;
  }
  return describe;
}
