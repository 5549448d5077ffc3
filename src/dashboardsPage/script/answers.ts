import type { Outputs } from '../../pages/script/api';

/** What `dashboards.*` answers, as the server's router types it: the page's shapes, declared nowhere else. */
export type DashboardType = Outputs['dashboards']['catalog'][number];
export type Panel = DashboardType['panels'][number];
export type MetricName = Panel['metric'];
export type Unit = Panel['unit'];
export type View = Outputs['dashboards']['view'];
export type Scopes = Outputs['dashboards']['scopes'];
export type Views = Outputs['dashboards']['views'];
