import { z } from 'zod';
import { appRouter } from '../../src/procedures';
import { API_VERSION, buildOpenApiDocument } from '../../src/openapi';

/** The parts of the OpenAPI document the client generators read (JSON Schema as trpc-to-openapi writes it). */
export interface Schema {
  $ref?: string;
  /** One type, or several (`["string", "null"]` for a nullable string). */
  type?: string | string[];
  enum?: (string | number)[];
  const?: string | number | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  description?: string;
  format?: string;
}

const schema: z.ZodType<Schema> = z.lazy(() =>
  z.object({
    $ref: z.string().optional(),
    type: z.union([z.string(), z.array(z.string())]).optional(),
    enum: z.array(z.union([z.string(), z.number()])).optional(),
    const: z.union([z.string(), z.number(), z.boolean()]).optional(),
    anyOf: z.array(schema).optional(),
    oneOf: z.array(schema).optional(),
    items: schema.optional(),
    properties: z.record(z.string(), schema).optional(),
    required: z.array(z.string()).optional(),
    additionalProperties: z.union([z.boolean(), schema]).optional(),
    description: z.string().optional(),
    format: z.string().optional(),
  }),
);

const parameter = z.object({
  name: z.string(),
  in: z.enum(['path', 'query', 'header']),
  required: z.boolean().optional(),
  description: z.string().optional(),
  schema,
});
export type Parameter = z.infer<typeof parameter>;

const openApiDocument = z.object({
  info: z.object({ version: z.string() }),
  paths: z.record(
    z.string(),
    z.object({
      get: z
        .object({
          operationId: z.string(),
          summary: z.string().optional(),
          description: z.string().optional(),
          parameters: z.array(parameter).optional(),
          responses: z.record(z.string(), z.object({ content: z.record(z.string(), z.object({ schema })).optional() })),
        })
        .optional(),
    }),
  ),
  components: z.object({ schemas: z.record(z.string(), schema) }),
});

export interface Operation {
  operationId: string;
  path: string;
  summary?: string;
  description?: string;
  parameters: Parameter[];
  /** The 200 response's schema name (`UserList`, `UserResponse`, `DoraMetricsResponse`). */
  response: string;
}

export interface ApiDocument {
  version: string;
  operations: Operation[];
  schemas: Record<string, Schema>;
  /** The `code` values of the error envelope. */
  errorCodes: string[];
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** The document GET /v1/openapi.json serves, built by the same function from the same router. */
export function loadDocument(): ApiDocument {
  // Read through the shape above (a round trip through JSON, as clients read it): what a generator uses is checked.
  const document = openApiDocument.parse(JSON.parse(JSON.stringify(buildOpenApiDocument(appRouter, API_VERSION))));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const get = item.get;
    if (!get) continue;
    const schema = get.responses['200']?.content?.['application/json']?.schema;
    if (!schema?.$ref) throw new Error(`${get.operationId}: its 200 response has no schema of its own`);
    operations.push({ operationId: get.operationId, path, summary: get.summary, description: get.description, parameters: get.parameters ?? [], response: refName(schema.$ref) });
  }
  const errorSchema = document.components.schemas.Error?.properties?.error?.properties?.code;
  return {
    version: document.info.version,
    operations,
    schemas: document.components.schemas,
    errorCodes: (errorSchema?.enum ?? []).map(String),
  };
}

export { refName };
