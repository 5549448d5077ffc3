import { forEachOpenApiProcedure } from 'trpc-to-openapi';
import type { AppRouter } from '../procedures';
import type { ProcedureMeta } from '../procedures/init';

export interface RestOperation {
  template: string;
  meta: ProcedureMeta;
}

/**
 * The operation a REST path answers to: its OpenAPI template (`/v1/users/usr_ada/teams` → `/v1/users/{id}/teams`),
 * the metrics' route label, and its procedure's declaration; undefined for a path no operation has. Templates with fewer parameters are tried first, so
 * literal segments (`/git/apps/{id}/repositories/all`) win over a parameter in the same place, as they do in routing.
 * `which` keeps only some operations: a path of any other answers undefined without being matched against them.
 */
export function restOperations(router: AppRouter, basePath: string, which: (meta: ProcedureMeta) => boolean = () => true): (path: string) => RestOperation | undefined {
  const routes: (RestOperation & { pattern: RegExp; parameters: number })[] = [];
  forEachOpenApiProcedure(router._def.procedures, ({ meta }) => {
    if (!which(meta)) return;
    const template = `${basePath}${meta.openapi.path}`;
    const parameters = (template.match(/\{\w+\}/g) ?? []).length;
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+');
    routes.push({ template, meta, pattern: new RegExp(`^${source}/?$`), parameters });
  });
  routes.sort((a, b) => a.parameters - b.parameters);
  return (path) => routes.find((r) => r.pattern.test(path));
}
