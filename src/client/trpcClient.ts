import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { HTTPBatchLinkOptions, TRPCClient } from '@trpc/client';
import type { AppRouter } from '../procedures';
import { MAX_TRPC_BATCH } from '../wire/limits';

export interface PlatformClientOptions {
  /** The tRPC endpoint, e.g. `http://localhost:3000/trpc`. */
  url: string;
  /** An API token (`plat_…`); sent as `Authorization: Bearer <token>` on every request. */
  token: string;
  /** A fetch of your own (to read response headers, add timeouts, …); the global fetch otherwise. */
  fetch?: HTTPBatchLinkOptions<AppRouter['_def']['_config']['$types']>['fetch'];
}

export type PlatformClient = TRPCClient<AppRouter>;

/**
 * A typed tRPC client for in-house TypeScript frontends. Calls made in the same tick are batched into HTTP
 * requests of at most MAX_TRPC_BATCH calls; each call counts as one request against the rate limits. Failures reject with a
 * `TRPCClientError` whose `data.code` is the REST error code (`NOT_FOUND`, …) and `data.httpStatus` its status.
 */
export function createPlatformClient({ url, token, fetch }: PlatformClientOptions): PlatformClient {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url,
        maxItems: MAX_TRPC_BATCH,
        headers: { Authorization: `Bearer ${token}` },
        ...(fetch ? { fetch } : {}),
      }),
    ],
  });
}
