import { EVENT_TYPES } from '../../src/persistence/changes/events';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/harness';

/** The generated OpenAPI document (GET /v1/openapi.json): paths, security, response schemas and list parameters. */

type Json = Record<string, any>;

const CREATED_AT = ['created_at[eq]', 'created_at[gte]', 'created_at[lte]', 'created_at[gt]', 'created_at[lt]'];
const LIST_QUERY = ['page', 'per_page', 'sort', 'order', 'fields', ...CREATED_AT];

/** The 31 paths of the catalog and the two `all` repository forms (relative to the server URL /v1): list paths with their sort whitelist (docs/api.md#items-and-their-fields), and get-one paths. */
const LISTS: Record<string, string[]> = {
  '/users': ['created_at', 'name', 'email'],
  '/users/{user_id}/apps': ['created_at', 'name'],
  '/users/{user_id}/dashboard-views': ['created_at', 'name'],
  '/users/{user_id}/interactions': ['created_at'],
  '/users/{user_id}/organizations': ['created_at', 'name'],
  '/users/{user_id}/teams': ['created_at', 'name'],
  '/users/{user_id}/git/apps': ['created_at', 'name'],
  '/organizations': ['created_at', 'name'],
  '/organizations/{organization_id}/members': ['created_at', 'name', 'email'],
  '/organizations/{organization_id}/teams': ['created_at', 'name'],
  '/organizations/{organization_id}/apps': ['created_at', 'name'],
  '/organizations/{organization_id}/incidents': ['created_at'],
  '/organizations/{organization_id}/deployments': ['created_at'],
  '/organizations/{organization_id}/telemetry/events': ['created_at'],
  '/organizations/{organization_id}/audit-log': ['created_at'],
  '/teams': ['created_at', 'name'],
  '/teams/{team_id}/members': ['created_at', 'name', 'email'],
  '/teams/{team_id}/managers': ['created_at', 'name', 'email'],
  '/teams/{team_id}/tasks': ['created_at', 'title'],
  '/teams/{team_id}/interactions': ['created_at'],
  '/git/apps': ['created_at', 'name'],
  '/git/apps/{id}/repositories': ['created_at', 'name'],
  '/git/apps/{id}/repositories/all/commits': ['created_at'],
  '/git/apps/{id}/repositories/all/pull-requests': ['created_at', 'title'],
  '/git/apps/{id}/repositories/{repo}/commits': ['created_at'],
  '/git/apps/{id}/repositories/{repo}/pull-requests': ['created_at', 'title'],
  '/git/apps/{id}/repositories/{repo}/pull-requests/{pr}/activity': ['created_at'],
  '/git/apps/{id}/repositories/all/deployments': ['created_at'],
  '/git/apps/{id}/repositories/all/incidents': ['created_at'],
  '/git/apps/{id}/repositories/{repo}/deployments': ['created_at'],
  '/git/apps/{id}/repositories/{repo}/incidents': ['created_at'],
  '/dashboard-views': ['created_at', 'name'],
  '/dashboard-views/catalog': ['key', 'name'],
  '/commits': ['created_at'],
};
/** Lists with filters of their own, beside the common query. */
const OWN_FILTERS: Record<string, string[]> = {
  '/organizations/{organization_id}/telemetry/events': ['name', 'source', 'user_id'],
  '/organizations/{organization_id}/audit-log': ['action', 'actor_user_id'],
};
/** Lists whose items have no created_at, hence no created_at filters, and their default order. */
const WITHOUT_CREATED_AT: Record<string, 'asc'> = { '/dashboard-views/catalog': 'asc' };
const GET_ONES = [
  '/users/{user_id}',
  '/users/{user_id}/apps/{app_id}',
  '/users/{user_id}/dashboard-views/{view_id}',
  '/users/{user_id}/teams/{team_id}',
  '/organizations/{organization_id}',
  '/teams/{team_id}',
  '/teams/{team_id}/members/{user_id}',
  '/dashboard-views/{id}',
];
/** The Metrics API of docs/metrics.md. */
const METRIC_PATHS = ['/metrics/dora', '/metrics/pull-requests', '/metrics/flow', '/metrics/activity', '/metrics/ai-usage', '/metrics/ai-impact', '/metrics/collaboration', '/metrics/financial'];
const ALL_PATHS = [...Object.keys(LISTS), ...GET_ONES, ...METRIC_PATHS];

// 414 and 431 are answered before a request is read, on every operation alike.
const ERROR_STATUSES = ['400', '401', '403', '404', '414', '429', '431', '500', '503'];

let t: TestApp;
let doc: Json;
let res: request.Response;

/** Resolves a local JSON pointer ("#/components/schemas/User") in the document. */
function resolve(ref: string): Json | undefined {
  expect(ref.startsWith('#/')).toBe(true);
  let node: any = doc;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function deref(node: Json): Json {
  return node.$ref ? resolve(node.$ref)! : node;
}

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

beforeAll(async () => {
  t = await startTestApp();
  res = await request(t.runtime.app).get('/v1/openapi.json');
  doc = res.body;
});
afterAll(async () => t.close());

test('is served without a token, as JSON, with the /v1 server', () => {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(doc.openapi).toMatch(/^3\./);
  expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  expect(doc.servers).toEqual([{ url: '/v1' }]);
});

test('documents the 31 paths of the catalog, the deployment and incident lists of docs/ingest.md and docs/incidents.md, the `all` form of the four repository lists, the four metrics of docs/metrics.md, ai-usage (docs/metrics.md#ai-usage) and pull request activity, telemetry events (docs/telemetry.md) and audit log (docs/settings.md#audit-log), each with GET only', () => {
  expect(Object.keys(doc.paths).sort()).toEqual([...ALL_PATHS].sort());
  expect(ALL_PATHS.filter((p) => !p.includes('/repositories/all/') && !/deployments|incidents|metrics|telemetry|activity|audit-log/.test(p))).toHaveLength(31);
  expect(ALL_PATHS).toHaveLength(50);
  for (const path of ALL_PATHS) expect({ path, methods: Object.keys(doc.paths[path]) }).toEqual({ path, methods: ['get'] });
});

test('every operation requires the bearer token', () => {
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  for (const path of ALL_PATHS) {
    expect({ path, security: doc.paths[path].get.security }).toEqual({ path, security: [{ bearerAuth: [] }] });
  }
});

test('every operation has a summary, a description and one tag the document declares and describes', () => {
  const declared = Object.fromEntries((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
  expect(Object.keys(declared)).toEqual(['Users', 'Organizations', 'Teams', 'Git', 'Dashboards', 'Metrics', 'Webhooks']);
  for (const description of Object.values(declared)) expect(description).toEqual(expect.stringMatching(/\w{3,}/));
  for (const path of ALL_PATHS) {
    const { summary, description, tags } = doc.paths[path].get;
    expect({ path, summary, description }).toEqual({ path, summary: expect.stringMatching(/\w{3,}/), description: expect.stringMatching(/^.{20,}$/) });
    expect({ path, tags }).toEqual({ path, tags: [expect.any(String)] });
    expect(Object.keys(declared)).toContain(tags[0]);
  }
});

test('the webhooks: one POST per event type, each described, its body the message with signature headers', () => {
  const webhooks = doc.webhooks as Record<string, Json>;
  expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES]);
  for (const [type, item] of Object.entries(webhooks)) {
    const { summary, description, tags, parameters, requestBody } = item.post;
    expect({ type, summary, description, tags }).toEqual({ type, summary: expect.stringMatching(/\w{3,}/), description: expect.stringMatching(/^.{20,}/), tags: ['Webhooks'] });
    expect(parameters.map((p: Json) => [p.name, p.in, p.required])).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
    ]);
    const schema = requestBody.content['application/json'].schema;
    expect(schema).toMatchObject({ type: 'object', required: ['type', 'timestamp', 'data'], additionalProperties: false, properties: { type: { const: type } } });
  }
});

test('the metrics take one scope, a window of days and an interval, each described', () => {
  for (const path of METRIC_PATHS) {
    const parameters = doc.paths[path].get.parameters as Json[];
    expect(parameters.map((p) => [p.name, p.in, p.required ?? false])).toEqual([
      ['organization_id', 'query', false],
      ['team_id', 'query', false],
      ['from', 'query', false],
      ['to', 'query', false],
      ['interval', 'query', false],
    ]);
    for (const p of parameters) expect({ name: p.name, description: p.description }).toEqual({ name: p.name, description: expect.stringMatching(/^.{20,}$/) });
    expect(parameters.find((p) => p.name === 'interval')!.schema.enum).toEqual(['day', 'week', 'month']);
  }
});

test('operation ids are unique', () => {
  const operationIds = ALL_PATHS.map((p) => doc.paths[p].get.operationId);
  for (const id of operationIds) expect(typeof id).toBe('string');
  expect(new Set(operationIds).size).toBe(ALL_PATHS.length);
});

test('every $ref in the document resolves', () => {
  const refs = new Set<string>();
  (function walk(node: unknown): void {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') refs.add(value);
        else walk(value);
      }
    }
  })(doc);
  expect(refs.size).toBeGreaterThan(10);
  for (const ref of refs) expect({ ref, resolves: resolve(ref) !== undefined }).toEqual({ ref, resolves: true });
});

test('the 200 response of every path references a named schema of the right envelope', () => {
  for (const path of ALL_PATHS) {
    const ok = doc.paths[path].get.responses['200'];
    const ref: string = ok.content['application/json'].schema.$ref;
    expect({ path, ref }).toEqual({ path, ref: expect.stringMatching(/^#\/components\/schemas\/\w+$/) });
    const envelope = resolve(ref)!;
    expect(envelope.type).toBe('object');
    expect(envelope.properties.status).toMatchObject({ const: 'success' });
    if (path in LISTS) {
      expect({ path, ref }).toEqual({ path, ref: expect.stringMatching(/List$/) });
      expect(envelope.required).toEqual(expect.arrayContaining(['status', 'data', 'meta']));
      expect(envelope.properties.data.type).toBe('array');
      expect(envelope.properties.data.items.$ref).toMatch(/^#\/components\/schemas\/\w+$/);
      const meta = deref(envelope.properties.meta);
      expect(Object.keys(meta.properties).sort()).toEqual(['order', 'page', 'per_page', 'sort', 'total', 'total_pages']);
    } else {
      expect({ path, ref }).toEqual({ path, ref: expect.stringMatching(/Response$/) });
      // A metric's answer names the settings version it was computed under (docs/metrics.md#what-counts).
      const metric = path.startsWith('/metrics/');
      expect(Object.keys(envelope.properties).sort()).toEqual(metric ? ['data', 'meta', 'status'] : ['data', 'status']);
      if (metric) expect(Object.keys(deref(envelope.properties.meta).properties)).toEqual(['settings_version']);
      expect(envelope.properties.data.$ref).toMatch(/^#\/components\/schemas\/\w+$/);
    }
  }
});

test('the item schemas carry the docs/api.md#items-and-their-fields fields', () => {
  const itemOf = (path: string): Json => {
    const envelope = resolve(doc.paths[path].get.responses['200'].content['application/json'].schema.$ref)!;
    return resolve(path in LISTS ? envelope.properties.data.items.$ref : envelope.properties.data.$ref)!;
  };
  const fields = (path: string) => Object.keys(itemOf(path).properties).sort();
  expect(fields('/users')).toEqual(['created_at', 'email', 'id', 'name']);
  expect(fields('/users/{user_id}')).toEqual(['created_at', 'email', 'id', 'name']);
  expect(fields('/organizations')).toEqual(['created_at', 'id', 'name']);
  expect(fields('/organizations/{organization_id}/members')).toEqual(['created_at', 'email', 'id', 'name', 'role']);
  expect(fields('/organizations/{organization_id}/teams')).toEqual(['created_at', 'id', 'name', 'organization_id']);
  expect(fields('/organizations/{organization_id}/apps')).toEqual(
    ['category', 'created_at', 'id', 'is_active', 'name', 'organization_id', 'provider'],
  );
  expect(fields('/users/{user_id}/teams/{team_id}')).toEqual(['created_at', 'organization_id', 'role', 'team_id', 'title', 'user_id']);
  expect(fields('/users/{user_id}/apps')).toEqual(['created_at', 'external_user_id', 'id', 'name', 'provider', 'user_id']);
  expect(fields('/users/{user_id}/git/apps')).toEqual(['created_at', 'id', 'name', 'provider', 'user_id', 'username']);
  expect(fields('/users/{user_id}/interactions')).toEqual(['counterpart_id', 'created_at', 'id', 'source', 'team_id', 'type', 'user_id']);
  expect(fields('/users/{user_id}/dashboard-views')).toEqual(
    ['created_at', 'id', 'name', 'organization_id', 'owner_id', 'team_id', 'type', 'visibility'],
  );
  expect(itemOf('/organizations/{organization_id}/members').properties.role.enum).toEqual(['admin', 'manager', 'collaborator']);
  expect(itemOf('/users/{user_id}/dashboard-views').properties.visibility.enum).toEqual(['private', 'team', 'organization']);
});

test('error responses 400/401/403/404/429/500/503 reference the Error schema; 304 has no body', () => {
  for (const path of ALL_PATHS) {
    const responses = doc.paths[path].get.responses;
    expect({ path, statuses: Object.keys(responses).sort() }).toEqual({ path, statuses: ['200', '304', ...ERROR_STATUSES].sort() });
    expect(deref(responses['304']).content).toBeUndefined();
    for (const status of ERROR_STATUSES) {
      const response = deref(responses[status]);
      expect(typeof response.description).toBe('string');
      expect({ path, status, schema: response.content['application/json'].schema }).toEqual({
        path,
        status,
        schema: { $ref: '#/components/schemas/Error' },
      });
    }
  }
  expect(deref(doc.paths['/users'].get.responses['429']).headers['Retry-After']).toBeDefined();
  // The database out of reach, a figure too slow: clients retry after it.
  expect(deref(doc.paths['/users'].get.responses['503']).headers['Retry-After']).toBeDefined();
});

test('the Error schema is the spec\'s envelope, usable where it is referenced', () => {
  const error = doc.components.schemas.Error;
  expect(error.$ref).toBeUndefined();
  expect(error.type).toBe('object');
  expect(error.required).toEqual(expect.arrayContaining(['status', 'error']));
  expect(error.properties.status).toMatchObject({ const: 'error' });
  expect(error.properties.error.required).toEqual(expect.arrayContaining(['code', 'message']));
  expect(error.properties.error.properties.message.type).toBe('string');
  expect([...error.properties.error.properties.code.enum].sort()).toEqual(
    ['FORBIDDEN', 'HEADERS_TOO_LARGE', 'NOT_FOUND', 'RATE_LIMITED', 'REQUEST_TIMEOUT', 'SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'UNAUTHORIZED', 'URI_TOO_LONG', 'VALIDATION_ERROR'],
  );
});

test('every list path documents page, per_page, sort (its own fields), order, fields and the five created_at operators', () => {
  for (const [path, sortFields] of Object.entries(LISTS)) {
    const params: Json[] = doc.paths[path].get.parameters;
    const query = params.filter((p) => p.in === 'query');
    const byName = Object.fromEntries(query.map((p) => [p.name, p.schema]));
    const expected = [...(path in WITHOUT_CREATED_AT ? LIST_QUERY.filter((q) => !CREATED_AT.includes(q)) : LIST_QUERY), ...(OWN_FILTERS[path] ?? [])];
    expect({ path, query: query.map((p) => p.name).sort() }).toEqual({ path, query: [...expected].sort() });

    expect(byName.page).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(byName.per_page).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect({ path, sort: byName.sort }).toMatchObject({ path, sort: { type: 'string', enum: sortFields, default: sortFields[0] } });
    expect(byName.order).toMatchObject({ type: 'string', enum: ['asc', 'desc'], default: WITHOUT_CREATED_AT[path] ?? 'desc' });
    expect(byName.fields).toMatchObject({ type: 'string' });
    if (!(path in WITHOUT_CREATED_AT)) for (const op of CREATED_AT) expect(byName[op]).toMatchObject({ type: 'string' });
    for (const p of query) expect(p.required ?? false).toBe(false);

    // sortable fields are fields of the item
    const envelope = resolve(doc.paths[path].get.responses['200'].content['application/json'].schema.$ref)!;
    const item = resolve(envelope.properties.data.items.$ref)!;
    for (const field of sortFields) expect(Object.keys(item.properties)).toContain(field);
  }
});

test('every parameter carries its own description (rules, default, example), where docs pages and generated clients read it', () => {
  for (const path of ALL_PATHS) {
    for (const p of doc.paths[path].get.parameters as Json[]) {
      const where = { path, name: p.name };
      expect({ ...where, description: typeof p.description === 'string' && p.description.length > 20 }).toEqual({ ...where, description: true });
      expect({ ...where, inSchema: p.schema.description }).toEqual({ ...where, inSchema: undefined });
      if (p.in !== 'query') continue;
      expect({ ...where, example: /Example: `[^`]+`/.test(p.description) }).toEqual({ ...where, example: true });
      if (p.schema.default !== undefined) {
        expect({ ...where, default: p.description.includes(`default ${p.schema.default}`) }).toEqual({ ...where, default: true });
      }
    }
  }
  const users = Object.fromEntries((doc.paths['/users'].get.parameters as Json[]).map((p) => [p.name, p.description]));
  expect(users.per_page).toBe('Items per page, 1 to 100 (default 50). Larger values are rejected with 400, not clamped. Example: `20`.');
  expect(users.sort).toMatch(/^Sort field, one of: created_at, name, email \(default created_at\)/);
});

test('operationIds read as what they do: unique, list… for lists and get… for single records', () => {
  const ids = ALL_PATHS.map((path) => doc.paths[path].get.operationId as string);
  expect(new Set(ids).size).toBe(ids.length);
  for (const path of ALL_PATHS) {
    const id = doc.paths[path].get.operationId as string;
    expect({ path, id }).toEqual({ path, id: expect.stringMatching(path in LISTS ? /^list[A-Z][A-Za-z]+$/ : /^get[A-Z][A-Za-z]+$/) });
  }
  expect(doc.paths['/users'].get.operationId).toBe('listUsers');
  expect(doc.paths['/users/{user_id}'].get.operationId).toBe('getUser');
  expect(doc.paths['/users/{user_id}/apps'].get.operationId).toBe('listUserApps');
  expect(doc.paths['/git/apps/{id}/repositories/{repo}/commits'].get.operationId).toBe('listRepositoryCommits');
  expect(doc.paths['/commits'].get.operationId).toBe('listCommits');
});

test('path parameters are required, and get-one paths take only fields as a query parameter', () => {
  for (const path of ALL_PATHS) {
    const params: Json[] = doc.paths[path].get.parameters;
    const inPath = params.filter((p) => p.in === 'path');
    expect({ path, names: inPath.map((p) => p.name) }).toEqual({ path, names: pathParams(path) });
    for (const p of inPath) expect(p).toMatchObject({ required: true, schema: { type: 'string' } });
  }
  for (const path of GET_ONES) {
    const query = doc.paths[path].get.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
    expect({ path, query }).toEqual({ path, query: ['fields'] });
  }
});

test('the document alone is public: another /v1 path without a token is 401 in the error envelope', async () => {
  const missing = await request(t.runtime.app).get('/v1/openapi.yaml');
  expect(missing.status).toBe(401);
  expect(missing.body).toEqual({ status: 'error', error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
});
