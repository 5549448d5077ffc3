import { Router, Request, Response } from 'express';
import type { Filter } from 'scim2-parse-filter';
import { ScimError } from './errors';
import { listResponse } from './discovery';
import { parseFilter } from './filter';
import { ListQuery, listQueryOf, project } from './query';
import { callerOf, sendScim } from './respond';

/** What a SCIM resource type does, in its own terms; the router below gives every type the same HTTP. */
export interface ScimResource {
  /** `Users`, `Groups`: the path and the word messages use. */
  path: string;
  /** The core schema URN, which may prefix attribute names in `attributes` and `excludedAttributes`. */
  urn: string;
  list(organizationId: string, filter: Filter | undefined, query: ListQuery): Promise<{ total: number; resources: object[] }>;
  get(organizationId: string, id: string, query: ListQuery): Promise<object>;
  create(organizationId: string, body: unknown): Promise<{ id: string; resource: object }>;
  replace(organizationId: string, id: string, body: unknown): Promise<object>;
  patch(organizationId: string, id: string, body: unknown): Promise<object>;
  remove(organizationId: string, id: string): Promise<void>;
}

/**
 * `/scim/v2/<Resources>` of the token's organization (RFC 7644 §3): list with filter, paging and attribute
 * selection; read, create, replace, patch and delete one; 405 for any other method.
 */
export function scimResourceRouter(resource: ScimResource, base: string): Router {
  const router = Router();
  const organizationOf = (req: Request) => callerOf(req).organizationId;
  const id = (req: Request) => String(req.params.id);
  const singular = resource.path.slice(0, -1);

  router.get('/', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query);
    const filter = query.filter === undefined ? undefined : parseFilter(query.filter);
    const { total, resources } = await resource.list(organizationOf(req), filter, query);
    sendScim(res, 200, listResponse(resources.map((r) => project(r, query, resource.urn)), total, query.startIndex));
  });

  router.get('/:id', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query);
    if (query.filter !== undefined) throw new ScimError(400, 'invalidValue', `'filter' applies to /${resource.path}, not to one ${singular}`);
    sendScim(res, 200, project(await resource.get(organizationOf(req), id(req), query), query, resource.urn));
  });

  router.post('/', async (req: Request, res: Response) => {
    const created = await resource.create(organizationOf(req), req.body);
    res.setHeader('Location', `${base}/${resource.path}/${created.id}`);
    sendScim(res, 201, created.resource);
  });

  router.put('/:id', async (req: Request, res: Response) => {
    sendScim(res, 200, await resource.replace(organizationOf(req), id(req), req.body));
  });

  router.patch('/:id', async (req: Request, res: Response) => {
    sendScim(res, 200, await resource.patch(organizationOf(req), id(req), req.body));
  });

  router.delete('/:id', async (req: Request, res: Response) => {
    await resource.remove(organizationOf(req), id(req));
    res.status(204).end();
  });

  router.all(['/', '/:id'], (req: Request) => {
    throw new ScimError(
      405,
      undefined,
      `${req.method} is not allowed here; /${resource.path} takes GET and POST, /${resource.path}/{id} GET, PUT, PATCH and DELETE`,
    );
  });
  return router;
}
