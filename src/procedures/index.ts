import { router } from '../trpc/init';
import { organizationsRouter } from './organizations';
import { usersRouter } from './users';

export const appRouter = router({
  users: usersRouter,
  organizations: organizationsRouter,
});

/** The type in-house TypeScript frontends import for a typed tRPC client. */
export type AppRouter = typeof appRouter;
