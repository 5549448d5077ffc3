import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/harness';

/**
 * GET /v1/openapi.json validated against the official OpenAPI 3.1 JSON schema by
 * @seriousme/openapi-schema-validator (which also checks that every $ref resolves). The validator is an ES
 * module using import.meta, which jest's CommonJS runtime cannot load, so it runs in a child node process
 * that reads the document on stdin and prints the verdict as JSON.
 */

interface Verdict {
  valid: boolean;
  version?: string;
  errors?: unknown;
}

const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
`;

function validate(document: unknown): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--eval', VALIDATE],
      { cwd: path.resolve(__dirname, '..', '..'), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`validator failed to run: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as Verdict);
      },
    );
    child.stdin!.end(JSON.stringify(document));
  });
}

const root = path.resolve(__dirname, '..', '..');

interface Finding {
  linter: string;
  rule: string;
  severity: string;
  where: string;
  message: string;
}

/** Runs a linter installed in node_modules/.bin; its verdict is its JSON report, whatever its exit code says. */
function runLinter(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(root, 'node_modules', '.bin', binary),
      args,
      // Neither linter may call home from a test: Redocly's telemetry and update check are off.
      { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } },
      (err, stdout, stderr) => (stdout.trim() ? resolve(stdout) : reject(new Error(`${binary} failed to run: ${stderr || err?.message}`))),
    );
  });
}

/**
 * What `redocly lint` (recommended rules, redocly.yaml) and `spectral lint` (spectral:oas, .spectral.yaml) find in a
 * document, errors and warnings alike: API teams run both on the documents they consume.
 */
async function lint(document: unknown): Promise<Finding[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  try {
    const redocly = JSON.parse(await runLinter('redocly', ['lint', file, '--config', 'redocly.yaml', '--format', 'json'])) as {
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const spectral = JSON.parse(await runLinter('spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'])) as {
      code: string;
      severity: number;
      message: string;
      path: string[];
    }[];
    return [
      ...redocly.problems.map((p) => ({ linter: 'redocly', rule: p.ruleId, severity: p.severity, where: p.location[0]?.pointer ?? '', message: p.message })),
      // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
      ...spectral
        .filter((p) => p.severity <= 1)
        .map((p) => ({ linter: 'spectral', rule: p.code, severity: p.severity === 0 ? 'error' : 'warn', where: p.path.join('.'), message: p.message })),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let t: TestApp;
let doc: Record<string, any>;

beforeAll(async () => {
  t = await startTestApp();
  const res = await request(t.runtime.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => t.close());

test('the served document is a valid OpenAPI 3.1 document', async () => {
  const verdict = await validate(doc);
  // On failure the diff shows the validator's errors (instancePath, keyword, message).
  expect(verdict).toEqual({ valid: true, version: '3.1' });
});

test('the validator does catch a broken document (so the test above is not vacuous)', async () => {
  const breakages: [string, (d: Record<string, any>) => void, string][] = [
    ['a response without description', (d) => delete d.components.responses.NotFound.description, '/components/responses/NotFound'],
    ['a parameter in an unknown place', (d) => d.paths['/users'].get.parameters.push({ name: 'x', in: 'querystring', schema: {} }), '/paths/~1users/get/parameters'],
    ['a dangling $ref', (d) => (d.paths['/users'].get.responses['404'] = { $ref: '#/components/responses/Missing' }), '#/components/responses/Missing'],
  ];
  for (const [what, breakIt, reported] of breakages) {
    const broken = structuredClone(doc);
    breakIt(broken);
    const verdict = await validate(broken);
    expect({ what, valid: verdict.valid }).toEqual({ what, valid: false });
    expect(JSON.stringify(verdict.errors)).toContain(reported);
  }
});

test('Redocly (recommended) and Spectral (spectral:oas) find nothing in the served document, warnings included', async () => {
  // On failure the diff lists each finding: linter, rule, where and what.
  expect(await lint(doc)).toEqual([]);
});

test('the linters do catch what they are run for (so the test above is not vacuous)', async () => {
  const broken = structuredClone(doc);
  delete broken.info.license;
  delete broken.info.contact;
  delete broken.webhooks['user.created'].post.security;
  const found = (await lint(broken)).map(({ linter, rule, where }) => ({ linter, rule, where }));
  expect(found).toEqual(
    expect.arrayContaining([
      { linter: 'redocly', rule: 'info-license', where: '#/info' },
      { linter: 'redocly', rule: 'security-defined', where: '#/webhooks/user.created/post' },
      { linter: 'spectral', rule: 'info-contact', where: 'info' },
    ]),
  );
});

test('every webhook says how a receiver checks it is ours: no bearer scheme, the signature headers, the steps', () => {
  for (const [type, item] of Object.entries(doc.webhooks as Record<string, { post: Record<string, any> }>)) {
    const { security, parameters, description } = item.post;
    expect({ type, security }).toEqual({ type, security: [] });
    expect(parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
    expect(description).toContain('HMAC-SHA256');
  }
  expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  expect(doc.info.contact.url).toMatch(/\/docs$/);
});
