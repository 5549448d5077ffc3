import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks a response as it went over the wire against the OpenAPI document: the operation its path matches,
 * the status being one the operation declares, the body against that response's schema, and the declared
 * headers (their presence and integer type). A response to a path the document does not have must be an
 * error in the Error envelope. The document's schemas say `additionalProperties: false`, so a column the
 * schema does not name is a failure too.
 */

type Json = Record<string, any>;

export interface WireResponse {
  method: string;
  /** Path and query as requested, e.g. `/v1/users?page=2`. */
  url: string;
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

interface Operation {
  template: string;
  pattern: RegExp;
  /** Static segments outrank `{param}` ones, as in the router: `/dashboard-views/catalog` before `{id}`. */
  specificity: number;
  responses: Json;
}

const DOC_ID = 'openapi.json';

export function createContract(doc: Json, prefix = '/v1') {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, DOC_ID);
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (ref: string): ValidateFunction => {
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}${ref}` });
      validators.set(ref, validate);
    }
    return validate;
  };
  const resolve = (node: Json): Json => {
    if (!node?.$ref) return node;
    let target: any = doc;
    for (const part of String(node.$ref).slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!target) throw new Error(`unresolvable $ref ${node.$ref}`);
    return resolve(target);
  };

  const operations: Operation[] = Object.entries(doc.paths as Json).map(([template, item]) => {
    const segments = template.split('/').filter(Boolean);
    const source = segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    return {
      template,
      // Routing ignores case and a trailing slash.
      pattern: new RegExp(`^/${source}/?$`, 'i'),
      specificity: segments.filter((s) => !s.startsWith('{')).length,
      responses: (item as Json).get.responses,
    };
  });
  // Outside the documented operations (unknown routes and methods) the wire rules still hold: the error envelope,
  // and the rate-limit headers every response under /v1 carries.
  const errorResponse = {
    headers: doc.components.responses.NotFound.headers as Json,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };

  function checkBody(response: Json, res: WireResponse, problems: string[]): void {
    const media = response.content?.['application/json'];
    if (!media) return;
    const contentType = String(res.headers['content-type'] ?? '');
    if (!contentType.startsWith('application/json')) problems.push(`content-type is "${contentType}", not application/json`);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      problems.push(`body is not JSON: ${res.body.slice(0, 200)}`);
      return;
    }
    const ref = media.schema.$ref as string;
    const validate = validatorFor(ref);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      problems.push(`body does not match ${ref}: ${errors.join('; ')}`);
    }
  }

  function checkHeaders(response: Json, res: WireResponse, problems: string[]): void {
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Json)) {
      const header = resolve(declared);
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) problems.push(`header ${name} is missing`);
      else if (header.schema?.type === 'integer' && !/^-?\d+$/.test(String(value))) problems.push(`header ${name} is "${value}", not an integer`);
    }
  }

  /** The ways `res` departs from the document; empty when it conforms. */
  function check(res: WireResponse): string[] {
    const problems: string[] = [];
    // A CORS preflight is answered before the API (no token, no point), outside what the document describes.
    if (res.method === 'OPTIONS' && res.status === 204 && res.headers['access-control-allow-origin'] !== undefined) return problems;
    const path = res.url.split('?')[0].slice(prefix.length) || '/';
    const operation =
      res.method === 'GET' || res.method === 'HEAD'
        ? operations.filter((op) => op.pattern.test(path)).sort((a, b) => b.specificity - a.specificity)[0]
        : undefined;
    if (!operation) {
      // Not a documented operation (an unknown route or method): only an error in the envelope may answer.
      if (res.status < 400) problems.push(`status ${res.status} for a path the document does not have`);
      checkHeaders(errorResponse, res, problems);
      if (res.method !== 'HEAD') checkBody(errorResponse, res, problems);
    } else {
      const declared = operation.responses[String(res.status)];
      if (!declared) {
        problems.push(`status ${res.status} is not declared for GET ${operation.template}`);
      } else {
        const response = resolve(declared);
        checkHeaders(response, res, problems);
        if (res.method !== 'HEAD') checkBody(response, res, problems);
      }
    }
    return problems.map((p) => `${res.method} ${res.url} → ${res.status}: ${p}`);
  }

  return { check };
}
