/**
 * What of a metric only some callers may see, decided from the caller before anything is read: a figure nobody
 * asking may see is never computed (an organization's teams by AI adoption read every team's members).
 */
export type MetricDetail = { adoptionTiers: boolean };

export const EVERYONE_S_DETAIL: MetricDetail = { adoptionTiers: false };
