/**
 * The stack floor: the floor's answers (same SQL, same mysql2 pool) served through the API's fixed stack, as
 * the API uses it: express, a tRPC procedure per list with zod input and output schemas, exposed as REST by
 * trpc-to-openapi. None of the API's own work (auth, rate limits, access, ORM, ETag, compression). The
 * benchmark's "API / stack" ratio is thus the price of what the API itself adds; "stack / floor" the price of
 * the stack, which no change to the API can win back.
 *
 * Environment: PORT, and those of `openFloor` (answer.ts).
 */
import http from 'node:http';
import { openFloor } from './answer';
import { stackApp } from './stackApp';
import { listen, runFloor } from './listen';

async function main(): Promise<void> {
  const floor = await openFloor();
  listen(http.createServer(stackApp(floor)), 'stack floor', floor);
}

runFloor('stack floor', main);
