import { router } from './init';
import { organizationsRouter } from './organizations';
import { usersRouter } from './users';
import { teamsRouter } from './teams';
import { commitsEndpoint, gitRouter } from './git';
import { dashboardViewsRouter } from './dashboards';
import { metricsRouter } from './metrics';
import { settingsRouter } from './settings';
import { dashboardsRouter } from './dashboardPage';

export const appRouter = router({
  users: usersRouter,
  organizations: organizationsRouter,
  teams: teamsRouter,
  git: gitRouter,
  dashboardViews: dashboardViewsRouter,
  commits: commitsEndpoint,
  metrics: metricsRouter,
  settings: settingsRouter,
  dashboards: dashboardsRouter,
});

/** The type in-house TypeScript frontends import for a typed tRPC client. */
export type AppRouter = typeof appRouter;
