import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { DomainError, invalid, unauthenticated } from '../errors';
import type { RequestContext } from './context';
import { toRestError, toTRPCError } from '../wire/errorMapping';

/**
 * A procedure's declaration beside its OpenAPI operation. `sharedAnswer`: identical concurrent calls (same input,
 * same caller's access) may be answered with one computed, encoded body (src/http/sharedAnswers.ts); for
 * procedures whose answers are computed once and kept anyway (the Metrics API's figures).
 */
export type ProcedureMeta = OpenApiMeta & { sharedAnswer?: true };

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // /trpc errors carry the same code and message as REST in `data.code`; never a stack.
    errorFormatter({ shape, error }) {
      const rest = toRestError(error);
      return { message: rest.message, code: shape.code, data: { code: rest.code, httpStatus: rest.status, path: shape.data.path } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Domain errors thrown anywhere below become tRPC errors with the right code and status. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error.cause instanceof DomainError ? result.error.cause : result.error);
  return result;
});

/**
 * The base of every endpoint. The gate has already authenticated and rate-limited the request; its verdict
 * is enforced here, before input validation, giving the check order 401 → 429 → 400 → 404 → 403.
 */
export const authedProcedure = t.procedure.use(mapDomainErrors).use(({ ctx, next }) => {
  if (ctx.gateError) throw ctx.gateError;
  if (!ctx.principal) throw unauthenticated('Authentication required');
  if (ctx.queryProblems.length > 0) throw invalid(ctx.queryProblems.join('; '));
  return next({ ctx: { principal: ctx.principal } });
});

/**
 * The base of `settings.*` (docs/settings.md): the signed-in session only. The gate has authenticated the session cookie
 * and refused any API token; a mutation runs only when it came from a page of this service with the session's
 * CSRF token.
 */
export const settingsProcedure = t.procedure.use(mapDomainErrors).use(({ ctx, type, next }) => {
  if (ctx.gateError) throw ctx.gateError;
  if (!ctx.settings) throw unauthenticated('Not signed in. Sign in again at /auth/login');
  if (type === 'mutation' && ctx.settings.mutationRefusal) throw new DomainError('forbidden', ctx.settings.mutationRefusal);
  return next({ ctx: { settings: ctx.settings } });
});
