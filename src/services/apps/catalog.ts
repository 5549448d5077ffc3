import type { AppCategory } from '../../../db/models';
import { invalid } from '../../errors';
import type { VendorPuller } from '../aiVendors/vendorDay';
import type { HistorySource } from '../history/historySource';

/**
 * What the domain knows of a provider (src/integrations/provider.ts has the whole of it): its name, what it brings
 * in, whether it pushes deliveries (a webhook, so its connections need a secret) and, for an AI vendor, how it is read.
 */
export interface KnownProvider {
  id: string;
  name: string;
  category: AppCategory;
  /** Present when it pushes deliveries; the path segments it takes after the connection id. */
  webhook?: { resources?: readonly string[] };
  puller?: VendorPuller;
  /** What its API is read with by the history importers; none for a provider whose API is not read (the deployments API). */
  apiCredential?: { name: string; githubApp?: boolean };
  /** How its history is read from its API with that credential (docs/history.md). */
  history?: HistorySource;
  /** What to set at the provider so its deliveries come (the events to tick), said once when a connection is made. */
  setup?: string;
  /** Jira's: an app names the issue field that holds story points (others send their own estimate). */
  namesPointsField?: boolean;
  /** The deployments API's: a board's name may be a repository's id or full name, placed without a mapping. */
  boardsNameRepositories?: boolean;
  /** Bitbucket's: a pull request names its commits by an abbreviation, completed when a commit starting with it arrives. */
  abbreviatesShas?: boolean;
}

/**
 * The providers the service connects to, as the registry (src/integrations/registry.ts) lists them, handed to the
 * services that make and show connections and to the git activity writer: a git provider's connections are git
 * apps, every other's are apps.
 */
export class ProviderCatalog {
  private readonly byId: ReadonlyMap<string, KnownProvider>;

  constructor(readonly providers: readonly KnownProvider[]) {
    this.byId = new Map(providers.map((p) => [p.id, p]));
  }

  find(id: string): KnownProvider | undefined {
    return this.byId.get(id);
  }

  /** The providers an app may connect, in the registry's order (the CLI's usage, the settings page's choices). */
  get appProviders(): KnownProvider[] {
    return this.providers.filter((p) => p.category !== 'git');
  }

  /** The providers a git app may connect. */
  get gitProviders(): KnownProvider[] {
    return this.providers.filter((p) => p.category === 'git');
  }

  /** An app's provider, or 400 naming the choices. */
  appProvider(id: string): KnownProvider {
    const provider = this.find(id);
    if (provider && provider.category !== 'git') return provider;
    throw invalid(`provider must be one of ${this.appProviders.map((p) => p.id).join(', ')}${provider ? ` (${provider.name} is connected as a git app: npm run gitapps)` : ''}`);
  }

  /** A git app's provider, or 400 naming the choices. */
  gitProvider(id: string): KnownProvider {
    const provider = this.find(id);
    if (provider && provider.category === 'git') return provider;
    throw invalid(`provider must be one of ${this.gitProviders.map((p) => p.id).join(', ')}`);
  }

  /** Whether its connections receive deliveries, and so have a webhook secret. */
  pushes(id: string): boolean {
    return this.find(id)?.webhook !== undefined;
  }

  /** The providers whose API the history importers read, each connection with a credential of its own. */
  get readByApi(): KnownProvider[] {
    return this.providers.filter((p) => p.apiCredential !== undefined);
  }

  /** The providers whose history `npm run import` and the daily catch-up read. */
  get historyReaders(): KnownProvider[] {
    return this.providers.filter((p) => p.history !== undefined);
  }

  /** An AI vendor's puller; undefined for a provider the service does not read. */
  vendor(id: string): VendorPuller | undefined {
    return this.find(id)?.puller;
  }

  /**
   * The providers as the settings page offers them (its catalog, served so a provider registered on the server is
   * offered without a rebuilt page): plain data, no behaviour.
   */
  get offered() {
    return this.providers.map((p) => ({
      id: p.id,
      name: p.name,
      category: p.category,
      connection: p.category === 'git' ? ('git_app' as const) : ('app' as const),
      pushes: p.webhook !== undefined,
      resources: [...(p.webhook?.resources ?? [])],
      setup: p.setup ?? null,
      reads_github_account: p.puller?.readsGithubAccount ?? false,
      names_points_field: p.namesPointsField === true,
    }));
  }

  /** As people know it; the id of one not registered. */
  nameOf(id: string): string {
    return this.find(id)?.name ?? id;
  }
}
