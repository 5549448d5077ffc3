/**
 * The most calls one /trpc request may batch (docs/api.md#http-conventions). Each call counts as one request against the rate
 * limits; a larger batch is refused whole with 400. The typed client splits its batches to fit.
 */
export const MAX_TRPC_BATCH = 20;
