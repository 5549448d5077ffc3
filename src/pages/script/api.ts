import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../procedures';
import { MAX_TRPC_BATCH } from '../../wire/limits';
import { csrfToken, signedOut } from './session';

/**
 * The pages' procedures (`settings.*`, `dashboards.*`), typed by the server's router: a renamed procedure or a changed input fails the build.
 * Same origin, so the session cookie goes with every call; a change carries the session's CSRF token. Batched as
 * the server allows (no transformer: the server has none).
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      maxItems: MAX_TRPC_BATCH,
      headers: ({ opList }) => (opList.some((op) => op.type === 'mutation') ? csrfHeader() : {}),
    }),
  ],
});

/** What every change sends: the session's CSRF token (settings.* mutations and signing out refuse changes without it). */
export const csrfHeader = () => ({ 'X-CSRF-Token': csrfToken() });

/** A failed call, with the service's message (said to the person as it is) and its HTTP status (0: no answer). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A call's answer; its failure an ApiError, and a 401 (the session ended) shows the signed-out view too. */
export async function call<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    const failure = apiError(err);
    if (failure.status === 401) signedOut(failure.message);
    throw failure;
  }
}

function apiError(err: unknown): ApiError {
  if (!(err instanceof TRPCClientError)) throw err;
  const failure: TRPCClientError<AppRouter> = err;
  if (failure.data) return new ApiError(failure.message, failure.data.httpStatus);
  if (failure.cause instanceof SyntaxError) return new ApiError('The service’s answer could not be read. Try again.', 0);
  return new ApiError('The service could not be reached. Check the connection and try again.', 0);
}

/** What each procedure answers, as the server's router says. */
export type Outputs = inferRouterOutputs<AppRouter>;
/** What each procedure takes. */
export type Inputs = inferRouterInputs<AppRouter>;
