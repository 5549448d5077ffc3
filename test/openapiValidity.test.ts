import { execFile } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from './support/harness';

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
      { cwd: path.resolve(__dirname, '..'), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`validator failed to run: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as Verdict);
      },
    );
    child.stdin!.end(JSON.stringify(document));
  });
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
