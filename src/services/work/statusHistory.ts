import type { TaskStatus } from '../../../db/models';

/** A provider's status name placed in a category: the app's override for that name, else the provider's own. */
export type StatusCategories = (name: string | null, providerCategory: TaskStatus | null) => TaskStatus | null;

export function statusCategories(overrides: Map<string, TaskStatus>): StatusCategories {
  return (name, providerCategory) => (name !== null ? overrides.get(name.toLowerCase()) : undefined) ?? providerCategory;
}
