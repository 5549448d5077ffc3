import type { AppProvider } from '../../services/apps/providers';
import type { AppWebhooks } from './appDelivery';
import { linearWebhooks } from './linear';

/** The providers whose webhooks `/ingest/{provider}/{app_id}` takes, and how each is read (docs/ingest.md#trackers). */
export const APP_WEBHOOKS: Partial<Record<AppProvider, AppWebhooks>> = { linear: linearWebhooks };
