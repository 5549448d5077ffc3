import { ProviderCatalog } from '../services/apps/catalog';
import { INTEGRATIONS } from './registry';

/** The registry as the services take it. */
export const providerCatalog = (providers: ConstructorParameters<typeof ProviderCatalog>[0] = INTEGRATIONS) => new ProviderCatalog(providers);
