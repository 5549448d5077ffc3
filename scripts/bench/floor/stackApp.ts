/**
 * The floor's answers (same SQL, same mysql2 pool) served through the API's fixed stack, as the API uses it:
 * express, a tRPC procedure per list with zod input and output schemas, exposed as REST by trpc-to-openapi.
 * `guard` runs before the lists: none for the stack floor (stack.ts), authentication and limits for the service
 * floor (service.ts).
 */
import express, { RequestHandler } from 'express';
import { initTRPC } from '@trpc/server';
import { createOpenApiNodeHttpHandler, OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Floor } from './answer';
import type { ListDef } from './lists';

const t = initTRPC.meta<OpenApiMeta>().create();

// Every field of every item is checked, as the API's output schemas check theirs (generically: one union).
const item = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
const envelope = z.object({
  status: z.literal('success'),
  data: z.array(item),
  meta: z.object({
    page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
    sort: z.string(),
    order: z.enum(['asc', 'desc']),
  }),
});

function inputOf(template: string, list: ListDef) {
  const params = Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], z.string().min(1)]));
  return z.object({
    ...params,
    page: z.coerce.number().int().min(1).default(1),
    per_page: z.coerce.number().int().min(1).max(100).default(50),
    sort: z.enum(list.sorts).default(list.sorts[0]),
    order: z.enum(['asc', 'desc']).default(list.defaultOrder ?? 'desc'),
  });
}

export function stackApp(floor: Floor, guard?: RequestHandler): express.Express {
  // Literal segments (`all`, `catalog`) before `{id}` ones: the adapter's first match wins.
  const templates = Object.keys(floor.lists).sort((a, b) => a.split('{').length - b.split('{').length);
  const procedures = Object.fromEntries(
    templates.map((template, i) => {
      const list = floor.lists[template];
      const procedure = t.procedure
        .meta({ openapi: { method: 'GET', path: template as `/${string}` } })
        .input(inputOf(template, list))
        .output(envelope)
        .query(({ input }) => {
          const { page, per_page: perPage, sort, order, ...params } = input as Record<string, unknown> & z.infer<ReturnType<typeof inputOf>>;
          return floor.page(list, params as Record<string, string>, { page, perPage, sort, order }) as Promise<z.infer<typeof envelope>>;
        });
      return [`list${i}`, procedure];
    }),
  );
  const router = t.router(procedures);
  const handler = createOpenApiNodeHttpHandler({ router, createContext: () => ({}) });
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  if (guard) app.use('/v1', guard);
  app.use('/v1', (req, res, next) => {
    handler(req, res, next).catch(next);
  });
  return app;
}

