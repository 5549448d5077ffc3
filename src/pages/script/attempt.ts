import { ApiError } from './api';

/** An alert that also remembers whether its work is under way. */
const busy = new WeakSet<HTMLElement>();

/**
 * Runs `work` for something the person did, its failure said in `alert` (a 401 has shown the signed-out view
 * instead). A second press while the first is under way does nothing.
 */
export async function attempt(alert: HTMLElement, work: () => Promise<unknown>): Promise<void> {
  if (busy.has(alert)) return;
  busy.add(alert);
  alert.textContent = '';
  try {
    await work();
  } catch (err) {
    if (!(err instanceof ApiError)) console.error(err);
    if (!(err instanceof ApiError && err.status === 401)) alert.textContent = err instanceof Error ? err.message : String(err);
  } finally {
    busy.delete(alert);
  }
}
