import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * What an incident tool says of an incident beside its times (docs/incidents.md#what-is-stored), so that an
 * organization can say which incidents count in time to restore (docs/metrics.md#what-counts): `urgency` (PagerDuty's
 * `high` or `low`), `priority` (Opsgenie's P1–P5, PagerDuty's priority by its name) and `service` (the PagerDuty
 * service's or Opsgenie team's name). Null where the source says nothing of it: an issue labelled `incident`, a
 * script's call without them, and every incident stored before this, until its provider sends it again. Nothing is
 * filled in here: the deliveries were not kept, and a null is never excluded by a filter on it.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('incidents', 'urgency', { type: DataTypes.STRING(8), allowNull: true });
  await qi.addColumn('incidents', 'priority', { type: DataTypes.STRING(50), allowNull: true });
  await qi.addColumn('incidents', 'service', { type: DataTypes.STRING(200), allowNull: true });
}

/** Each column only while it is there: MariaDB commits each drop on its own, so a down that failed halfway runs again. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const columns = Object.keys(await qi.describeTable('incidents'));
  for (const column of ['service', 'priority', 'urgency']) if (columns.includes(column)) await dropColumn(qi, 'incidents', column);
}
