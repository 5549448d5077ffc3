import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import type { AppRouter } from './procedures';
import { ErrorEnvelope, errorEnvelope } from './wire/envelopes';
import { EVENT_TYPES } from './persistence/changes/events';
import { EVENT_CATALOG, messageSchema } from './services/webhooks/catalog';

const ERROR_RESPONSES: Record<string, { name: string; description: string; example: [string, string] }> = {
  '400': { name: 'ValidationError', description: 'Invalid request parameters', example: ['VALIDATION_ERROR', 'per_page must be an integer from 1 to 100'] },
  '401': { name: 'Unauthorized', description: 'Missing, invalid, expired or revoked token', example: ['UNAUTHORIZED', 'API token has expired'] },
  '403': { name: 'Forbidden', description: 'Valid token without access to the addressed resource', example: ['FORBIDDEN', 'You do not have permission to access this organization'] },
  '404': { name: 'NotFound', description: 'The addressed resource or route does not exist', example: ['NOT_FOUND', 'User not found'] },
  '414': {
    name: 'UriTooLong',
    description: 'The URL and headers together pass 16 KB and the request line is the long part; refused before the request is read',
    example: ['URI_TOO_LONG', 'Request URL is too long: the URL and headers together may be at most 16 KB; send fewer or shorter query parameters'],
  },
  '429': { name: 'RateLimited', description: 'Rate limit exceeded; see Retry-After', example: ['RATE_LIMITED', 'Rate limit of 100 requests exceeded; retry after 42 seconds'] },
  '431': {
    name: 'HeadersTooLarge',
    description: 'The URL and headers together pass 16 KB and the headers are the long part; refused before the request is read',
    example: ['HEADERS_TOO_LARGE', 'Request headers are too large: the URL and headers together may be at most 16 KB; check the Authorization header and drop unneeded headers'],
  },
  '500': { name: 'ServerError', description: 'Internal server error (details are never exposed)', example: ['SERVER_ERROR', 'Internal server error'] },
  '503': {
    name: 'ServiceUnavailable',
    description: 'Try again after Retry-After: the database is out of reach for the moment, or a figure took too long to compute',
    example: ['SERVICE_UNAVAILABLE', 'The database is not reachable at the moment; send the request again in a few seconds'],
  },
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Request limit of the reported tier (the one with the fewest requests left)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests remaining in that tier', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix epoch seconds when that tier’s window ends', schema: { type: 'integer' } },
};
const CACHING_HEADERS = {
  ETag: { description: 'Strong validator of the body; send it back in If-None-Match to get a 304 while nothing changed', schema: { type: 'string' } },
  'Cache-Control': { description: '`private, no-cache`: clients revalidate with If-None-Match; shared caches never store', schema: { type: 'string' } },
};
const LINK_HEADER = {
  Link: {
    description: 'RFC 8288 links to the `first`, `prev`, `next` and `last` pages, with the request’s other query parameters kept',
    schema: { type: 'string' },
  },
};
const refs = (headers: object) => Object.fromEntries(Object.keys(headers).map((h) => [h, { $ref: `#/components/headers/${h}` }]));
const headerRefs = refs(RATE_LIMIT_HEADERS);

/** Declared in this order, with descriptions, so the docs page groups the operations the way the spec does. */
const TAGS = [
  { name: 'Users', description: 'People, and what belongs to one person: their apps, git accounts, dashboard views, interactions, organizations and teams.' },
  { name: 'Organizations', description: 'Organizations the caller belongs to, their members (with roles), teams and apps.' },
  { name: 'Teams', description: 'Teams of the accessible organizations, their members and managers, tasks and interactions.' },
  { name: 'Git', description: 'Git apps (integrations), their repositories, commits and pull requests; `all` in place of a repository id means every repository of the git app.' },
  { name: 'Dashboards', description: 'Dashboard views visible to the caller and the catalog of dashboard types.' },
  {
    name: 'Metrics',
    description:
      'Figures computed from the organization\'s activity: DORA (Four Keys), pull requests, flow and activity, for an organization or a team, ' +
      'over a window of whole UTC days (default the 28 days ending today, at most 366), with an optional `series` per day, week or month.',
  },
  {
    name: 'Webhooks',
    description:
      'Events this service POSTs to the endpoints an organization subscribes (`npm run webhooks -- create`), signed as the Standard Webhooks ' +
      'specification says: verify them with the `standardwebhooks` library and the endpoint\'s `whsec_` secret.',
  },
];

const SIGNATURE_HEADERS = [
  ['webhook-id', "The event's id (`evt_…`): the same on every retry and replay; deduplicate on it"],
  ['webhook-timestamp', 'Unix seconds when this attempt was sent; refuse messages more than 5 minutes off'],
  ['webhook-signature', '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`; during a secret rotation two, separated by a space'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** How a receiver checks that a message is ours, in each webhook operation's description (the Standard Webhooks steps). */
const WEBHOOK_AUTHENTICITY =
  'Authenticity: no bearer token is sent; the message is signed. Before trusting it, compute base64 HMAC-SHA256 of ' +
  '`{webhook-id}.{webhook-timestamp}.{raw body}` with the endpoint\'s secret (the bytes after `whsec_`, base64-decoded), ' +
  'compare it in constant time with each `v1,` signature of `webhook-signature`, refuse a `webhook-timestamp` more than ' +
  '5 minutes from now, and deduplicate on `webhook-id`. The `standardwebhooks` libraries (`verify`) do all of it.';

/** OpenAPI 3.1 `webhooks`: one POST per event type, its body the message with the event's `/v1` item as `data`. */
function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const schema = z.toJSONSchema(messageSchema(type), { target: 'draft-2020-12' }) as Record<string, unknown>;
      delete schema.$schema;
      return [
        type,
        {
          post: {
            operationId: `webhook.${type}`,
            summary: EVENT_CATALOG[type].summary,
            description: `The body is \`{"type": "${type}", "timestamp", "data"}\`, \`data\` being ${EVENT_CATALOG[type].dataIs}.\n\n${WEBHOOK_AUTHENTICITY}`,
            tags: ['Webhooks'],
            // This service is the caller here: no bearer token applies; the signature headers prove the sender.
            security: [],
            parameters: SIGNATURE_HEADERS,
            requestBody: { required: true, content: { 'application/json': { schema } } },
            responses: {
              '2XX': { description: 'Received. Any other answer, or none within 15 s, is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)' },
              '410': { description: 'Gone: the endpoint is disabled and receives nothing more' },
            },
          },
        },
      ];
    }),
  );
}

type Doc = ReturnType<typeof generateOpenApiDocument>;

interface Parameter {
  description?: string;
  schema?: { description?: string };
}

/** Docs pages and generated clients read a parameter's description from the parameter, not from its schema. */
function describeOnParameter(parameter: unknown): void {
  const p = parameter as Parameter;
  if (p.schema?.description === undefined) return;
  p.description ??= p.schema.description;
  delete p.schema.description;
}

/** The project's licence (package.json, LICENSE), by its SPDX identifier as OpenAPI 3.1 allows. */
const LICENSE = { name: 'MIT', identifier: 'MIT' };

/**
 * Where a reader of the document reports a problem (`info.contact`): a deployment names its own (API_CONTACT_URL, else
 * its docs page); a build outside any deployment (the generated clients, the tests) names the default one's.
 */
const DEFAULT_CONTACT_URL = 'http://localhost:3000/docs';

/** The API's version as the document states it (`info.version`); the path prefix stays `/v1`. */
export const API_VERSION = '1.0.0';

/**
 * Generated from the router, then aligned with what the wire carries: the error envelope (docs/api.md#envelopes-and-errors) for every
 * error status (the adapter documents its own shape), the rate-limit headers on every response, ETag and
 * Cache-Control on 200 and 304, Link on lists, and each parameter's description on the parameter itself.
 */
export function buildOpenApiDocument(router: AppRouter, version: string, contactUrl: string = DEFAULT_CONTACT_URL): Doc {
  const doc = generateOpenApiDocument(router, {
    title: 'Platform API',
    version,
    description:
      'Read-only REST API of the engineering-metrics platform. Every request needs `Authorization: Bearer <API token>`. ' +
      'Lists return `{status, data, meta}` and a `Link` header; single records `{status, data}`; metrics `{status, data, meta: {settings_version}}`; errors `{status: "error", error: {code, message}}`. ' +
        'Every 200 carries an `ETag`: send it back in `If-None-Match` for a 304 that costs no rate-limit point. HEAD works wherever GET does; ' +
        'responses are compressed (br, gzip) when the client accepts it.',
    baseUrl: '/v1',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token: plat_...' } },
  });
  // ErrorEnvelope has an id, so zod emits `{$ref: '#/$defs/Error', $defs: {...}}`; that ref would resolve against the
  // document root, where there is no $defs. The component is the definition itself.
  const generated = z.toJSONSchema(ErrorEnvelope, { target: 'draft-2020-12' }) as { $defs?: Record<string, unknown> };
  const errorSchema = (generated.$defs?.Error ?? generated) as Record<string, unknown>;
  delete errorSchema.$schema;
  // The adapter's own error schemas describe a body this service never sends.
  const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.tags = TAGS;
  doc.info = { ...doc.info, license: LICENSE, contact: { name: 'Platform API maintainers', url: contactUrl } };
  (doc as { webhooks?: unknown }).webhooks = webhookOperations();
  doc.components = {
    ...doc.components,
    schemas: { ...schemas, Error: errorSchema as never },
    headers: { ...RATE_LIMIT_HEADERS, ...CACHING_HEADERS, ...LINK_HEADER } as never,
    responses: Object.fromEntries([
      [
        'NotModified',
        {
          description: 'Not modified: the `If-None-Match` ETag still matches. No body; the request does not count against the rate limits.',
          headers: { ...headerRefs, ...refs(CACHING_HEADERS) },
        },
      ],
      ...
      Object.values(ERROR_RESPONSES).map(({ name, description, example }) => [
        name,
        {
          description,
          headers: name === 'RateLimited' || name === 'ServiceUnavailable'
            ? { ...headerRefs, 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } }
            : headerRefs,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error' },
              example: errorEnvelope(example[0], example[1]),
            },
          },
        },
      ]),
    ]) as never,
  };
  for (const item of Object.values(doc.paths ?? {})) {
    const operation = (item as { get?: { responses?: Record<string, unknown>; parameters?: unknown[] } }).get;
    if (!operation?.responses) continue;
    operation.parameters?.forEach(describeOnParameter);
    const success = operation.responses['200'] as { headers?: unknown; content?: Record<string, { schema?: { $ref?: string } }> };
    const schemaName = success.content?.['application/json']?.schema?.$ref?.split('/').pop();
    // A list's meta is the ListMeta of its page; a metric answer's meta (the settings version) has no page to link.
    const meta = (schemas[schemaName ?? ''] as { properties?: { meta?: { $ref?: string } } } | undefined)?.properties?.meta;
    const isList = meta?.$ref === '#/components/schemas/ListMeta';
    operation.responses = {
      '200': { ...success, headers: { ...headerRefs, ...refs(CACHING_HEADERS), ...(isList ? refs(LINK_HEADER) : {}) } },
      '304': { $ref: '#/components/responses/NotModified' },
      ...Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, r]) => [status, { $ref: `#/components/responses/${r.name}` }])),
    };
  }
  return doc;
}
