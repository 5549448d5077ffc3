import { randomBytes } from 'node:crypto';
import { Op, Transaction } from 'sequelize';
import { App, AppBoard, AppStatusOverride, BoardRepository, GitApp, Organization, Repository, Task, TaskStatus, Team, UserApp } from '../../../db/models';
import { invalid, notFound } from '../../errors';
import { OPERATOR } from '../../persistence/changes/auditRecord';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import { ResultCache } from '../../persistence/query/countCache';
import { DataVersions } from '../../persistence/query/dataVersions';
import { openRotated, previousSecretGraceEnd, PREVIOUS_SECRET_GRACE_MS, SecretBox } from '../../secrets/secretBox';
import { ChangeAuthority, isWithinAuthority } from '../audit/actor';
import { AccountLink, AccountLinkWriter } from '../people/accountLinks';
import { APP_LINKS } from '../people/linkTables';
import { membersByEmail } from '../people/memberEmails';
import { normalizeEmail } from '../people/members';
import { rederiveTasks } from '../work/rederive';
import { placeBoardOperations } from '../operations/boardPlacement';
import type { ProviderCatalog } from './catalog';
import { connectVendorSource, replaceVendorCredential, VendorAccess } from './vendorSources';

export interface AppWithSecret {
  app: App;
  /** The plain webhook secret: shown once, stored sealed. */
  secret: string;
}

/** A new app, with its webhook secret when its provider pushes to us (an AI vendor's app has none, §20). */
export interface NewApp {
  app: App;
  secret: string | null;
}

export interface NewAppOptions {
  /** Defaults to the provider's name. */
  name?: string;
  /** Jira only: the issue field holding story points, e.g. `customfield_10016`. */
  pointsField?: string;
  /** An AI vendor's app only, and required there: how the service reads the vendor's API (docs/ai-vendors.md). */
  vendor?: VendorAccess;
}

/** Where a board goes: a team (its tasks) or a repository (its incidents and deployments). */
export type BoardTarget = { teamId: string } | { repositoryId: string };

/** One place a board goes: its team, or one of its repositories. */
export interface BoardMapping {
  app_id: string;
  board_key: string;
  team_id: string | null;
  repository_id: string | null;
  created_at: Date;
}

/** What a provider's own signing secret looks like: printable, no spaces. */
const PROVIDER_SECRET = /^[\x21-\x7e]{16,500}$/;

/** 256 random bits, URL-safe: every provider takes it as a webhook secret or a custom header's value. */
const newSecret = () => randomBytes(32).toString('base64url');

/**
 * Apps made by the `apps` CLI and the settings page (docs/trackers.md#apps): an organization's connection to a
 * tracker, chat, incident tool or AI vendor, with the webhook secret its provider signs or sends; the mapping of
 * its boards to teams or repositories, of its status names to categories, and of its accounts to members. Every
 * change is one transaction with its audit entry; a mapping places at once what its board already brought.
 */
export class AppWriter {
  /** Apps deliveries were addressed to, by the apps table's version: see find. */
  private readonly addressed = new ResultCache<App | null>(60_000, 1_000);

  constructor(
    private readonly changes: ChangeRunner,
    private readonly secrets: SecretBox,
    /** The registry's providers (src/integrations/registry.ts): which an app may connect, and what each takes. */
    readonly providers: ProviderCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new app of an app provider; its webhook secret (null for an AI vendor's, read by the service) shown once. */
  create(organizationId: string, providerId: string, options: NewAppOptions = {}, by: ChangeAuthority = {}): Promise<NewApp> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const provider = this.providers.appProvider(providerId);
      if (!(await Organization.findByPk(organizationId, { transaction }))) throw notFound(`No organization ${organizationId}`);
      if (options.pointsField !== undefined && !provider.namesPointsField) throw invalid(`Only Jira apps name a story points field; ${provider.id} sends its own estimate`);
      if (provider.puller && !options.vendor) throw invalid(`A ${provider.name} app is read with the credential the vendor issued: give it (--token-file <file>)`);
      if (!provider.puller && options.vendor) throw invalid(`${provider.name} sends its data to the service: it takes no vendor credential, GitHub organization or base URL`);
      const secret = provider.webhook ? newSecret() : null;
      const name = options.name ?? provider.name;
      const app = await App.create(
        {
          id: newId('app'),
          organization_id: organizationId,
          provider: provider.id,
          category: provider.category,
          name,
          is_active: true,
          created_at: this.now(),
          webhook_secret: secret === null ? null : this.secrets.seal(secret),
          points_field: options.pointsField ?? null,
        },
        { transaction },
      );
      change.wrote('apps');
      if (provider.puller && options.vendor) await connectVendorSource(change, app, this.providers, options.vendor, this.secrets, this.now());
      change.audit({ organizationId, actor: by.actor ?? OPERATOR, action: 'app.created', target: { type: 'app', id: app.id }, details: { provider: provider.id, name } });
      return { app, secret };
    });
  }

  /** A new secret; the previous one keeps verifying for PREVIOUS_SECRET_GRACE_MS. */
  rotateSecret(appId: string, by: ChangeAuthority = {}): Promise<AppWithSecret> {
    return this.replaceSecret(appId, newSecret(), 'service', by);
  }

  /**
   * The secret the provider made (Linear's, Slack's and PagerDuty's webhooks sign with a secret of their own, shown
   * once in their settings), in place of ours; the previous one keeps verifying for PREVIOUS_SECRET_GRACE_MS. For an
   * AI vendor's app, the new credential the vendor issued.
   */
  async setSecret(appId: string, secret: string, by: ChangeAuthority = {}): Promise<App> {
    if (this.providers.vendor((await this.appOf(appId, by)).provider)) return this.replaceCredential(appId, secret, by);
    if (!PROVIDER_SECRET.test(secret)) throw invalid('The secret must be 16 to 500 printable characters without spaces, as the provider shows it');
    return this.replaceSecret(appId, secret, 'provider', by).then(({ app }) => app);
  }

  private replaceCredential(appId: string, credential: string, by: ChangeAuthority): Promise<App> {
    return this.changes.run(async (change) => {
      const app = await this.appOf(appId, by, change.transaction);
      if (!this.providers.vendor(app.provider)) throw invalid(`App ${app.id} (${app.provider}) is not read from a vendor's API`);
      await replaceVendorCredential(change, app, this.providers, credential, this.secrets, this.now());
      change.audit({ organizationId: app.organization_id, actor: by.actor ?? OPERATOR, action: 'app.secret_rotated', target: { type: 'app', id: app.id }, details: { made_by: 'vendor' } });
      return app;
    });
  }

  private replaceSecret(appId: string, secret: string, madeBy: 'service' | 'provider', by: ChangeAuthority): Promise<AppWithSecret> {
    return this.changes.run(async (change) => {
      const app = await this.appOf(appId, by, change.transaction);
      if (!this.providers.pushes(app.provider)) throw invalid(`App ${app.id} (${app.provider}) receives no webhooks, so it has no webhook secret to rotate or set`);
      await app.update(
        {
          webhook_secret: this.secrets.seal(secret),
          previous_webhook_secret: app.webhook_secret,
          previous_secret_expires_at: app.webhook_secret ? new Date(this.now().getTime() + PREVIOUS_SECRET_GRACE_MS) : null,
        },
        { transaction: change.transaction },
      );
      change.wrote('apps');
      change.audit({ organizationId: app.organization_id, actor: by.actor ?? OPERATOR, action: 'app.secret_rotated', target: { type: 'app', id: app.id }, details: { made_by: madeBy } });
      return { app, secret };
    });
  }

  /**
   * Refuses the secret a rotation (or set-secret) replaced at once, instead of at the end of its grace: for a secret
   * that leaked. `ended` is false, and nothing is written, when no previous secret was still accepted.
   */
  endSecretGrace(appId: string, by: ChangeAuthority = {}): Promise<{ app: App; ended: boolean }> {
    return this.changes.run(async (change) => {
      const app = await this.appOf(appId, by, change.transaction);
      if (!this.providers.pushes(app.provider)) throw invalid(`App ${app.id} (${app.provider}) receives no webhooks, so it has no previous webhook secret to refuse`);
      if (!previousSecretGraceEnd(app, this.now())) return { app, ended: false };
      await app.update({ previous_webhook_secret: null, previous_secret_expires_at: null }, { transaction: change.transaction });
      change.wrote('apps');
      change.audit({ organizationId: app.organization_id, actor: by.actor ?? OPERATOR, action: 'app.secret_grace_ended', target: { type: 'app', id: app.id } });
      return { app, ended: true };
    });
  }

  /** A disabled app's deliveries are refused (403) until it is enabled again; what it brought stays. */
  setActive(appId: string, active: boolean, by: ChangeAuthority = {}): Promise<App> {
    return this.changes.run(async (change) => {
      const app = await this.appOf(appId, by, change.transaction);
      if (Boolean(app.is_active) === active) return app;
      await app.update({ is_active: active }, { transaction: change.transaction });
      change.wrote('apps');
      change.audit({ organizationId: app.organization_id, actor: by.actor ?? OPERATOR, action: active ? 'app.enabled' : 'app.disabled', target: { type: 'app', id: app.id } });
      return app;
    });
  }

  /**
   * Ties a board of an app (or of a git app: its repositories' issues) to a team, or a board of an incident tool or
   * the deployments API to a repository of the same organization (one more each time: a PagerDuty service may run
   * several); what the board brought before is placed at once.
   */
  map(appId: string, board: string, target: BoardTarget, by: ChangeAuthority = {}): Promise<BoardMapping> {
    return this.changes.run(async (change) => {
      const source = await this.boardSourceOf(appId, by, change.transaction);
      const mapping = 'teamId' in target ? await this.mapToTeam(change, source, board, target.teamId) : await this.mapToRepository(change, source, board, target.repositoryId);
      if (mapping.changed) {
        change.audit({
          organizationId: source.organization_id,
          actor: by.actor ?? OPERATOR,
          action: 'app.board_mapped',
          target: { type: 'app', id: source.id },
          details: { board, ...('teamId' in target ? { team_id: target.teamId } : { repository_id: target.repositoryId }) },
        });
      }
      return mapping.mapping;
    });
  }

  private async mapToTeam(change: Change, source: BoardSource, board: string, teamId: string): Promise<{ mapping: BoardMapping; changed: boolean }> {
    const { transaction } = change;
    if (source.bringsOperations) {
      throw invalid(`A ${this.providers.nameOf(source.provider)} board is mapped to a repository (--repository <id>): its incidents and deployments count for the teams that work in it`);
    }
    const team = await Team.findByPk(teamId, { attributes: ['id', 'organization_id'], transaction });
    if (!team || team.organization_id !== source.organization_id) throw notFound(`No team ${teamId} in organization ${source.organization_id}`);
    const existing = await AppBoard.findOne({ where: { app_id: source.id, board_key: board }, transaction, lock: transaction.LOCK.UPDATE });
    const fields = { organization_id: source.organization_id, team_id: teamId };
    const row = existing ? await existing.update(fields, { transaction }) : await AppBoard.create({ app_id: source.id, board_key: board, ...fields, created_at: this.now() }, { transaction });
    change.wrote('app_boards');
    await placeTasks(change, source.id, board, teamId);
    return { mapping: { app_id: row.app_id, board_key: row.board_key, team_id: row.team_id, repository_id: null, created_at: row.created_at }, changed: true };
  }

  private async mapToRepository(change: Change, source: BoardSource, board: string, repositoryId: string): Promise<{ mapping: BoardMapping; changed: boolean }> {
    const { transaction } = change;
    const repository = await Repository.findByPk(repositoryId, { attributes: ['id', 'git_app_id'], transaction });
    const owner = repository && (await GitApp.findByPk(repository.git_app_id, { attributes: ['organization_id'], transaction }));
    if (!owner || owner.organization_id !== source.organization_id) throw notFound(`No repository ${repositoryId} in organization ${source.organization_id}`);
    if (!source.bringsOperations) {
      throw invalid(`A ${source.provider === 'git' ? 'git app' : this.providers.nameOf(source.provider)} board is mapped to a team (--team <id>): its tasks count for that team`);
    }
    const key = { app_id: source.id, board_key: board, repository_id: repositoryId };
    const existing = await BoardRepository.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
    const row = existing ?? (await BoardRepository.create({ ...key, organization_id: source.organization_id, created_at: this.now() }, { transaction }));
    if (!existing) {
      change.wrote('board_repositories');
      await placeOperations(change, source, board);
    }
    return { mapping: { app_id: row.app_id, board_key: row.board_key, team_id: null, repository_id: row.repository_id, created_at: row.created_at }, changed: !existing };
  }

  /**
   * Unties a board from its team or from every repository, or (`repositoryId`) from that one only: its tasks count
   * for the organization only, its incidents for the repositories left (or the organization).
   */
  unmap(appId: string, board: string, by: ChangeAuthority = {}, repositoryId?: string): Promise<boolean> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const source = await this.boardSourceOf(appId, by, transaction);
      const ofBoard = { app_id: source.id, board_key: board };
      const fromRepositories = await BoardRepository.destroy({ where: repositoryId ? { ...ofBoard, repository_id: repositoryId } : ofBoard, transaction });
      const fromTeam = repositoryId ? 0 : await AppBoard.destroy({ where: ofBoard, transaction });
      if (!fromRepositories && !fromTeam) return false;
      if (fromTeam) change.wrote('app_boards');
      if (fromRepositories) change.wrote('board_repositories');
      if (source.bringsOperations) await placeOperations(change, source, board);
      else await placeTasks(change, source.id, board, null);
      change.audit({
        organizationId: source.organization_id,
        actor: by.actor ?? OPERATOR,
        action: 'app.board_unmapped',
        target: { type: 'app', id: source.id },
        details: { board, ...(repositoryId ? { repository_id: repositoryId } : {}) },
      });
      return true;
    });
  }

  /** The app's boards and where each goes: a row per team or repository, by board, then as mapped. */
  async mappings(appId: string, by: ChangeAuthority = {}): Promise<BoardMapping[]> {
    const source = await this.boardSourceOf(appId, by);
    const [teams, repositories] = await Promise.all([
      AppBoard.findAll({ where: { app_id: source.id } }),
      BoardRepository.findAll({ where: { app_id: source.id }, order: [['created_at', 'ASC'], ['repository_id', 'ASC']] }),
    ]);
    const rows: BoardMapping[] = [
      ...teams.map((t) => ({ app_id: t.app_id, board_key: t.board_key, team_id: t.team_id, repository_id: null, created_at: t.created_at })),
      ...repositories.map((r) => ({ app_id: r.app_id, board_key: r.board_key, team_id: null, repository_id: r.repository_id, created_at: r.created_at })),
    ];
    // Stable: within a board, the order mapped (its first repository is where its deployments go).
    return rows.sort((a, b) => (a.board_key < b.board_key ? -1 : a.board_key > b.board_key ? 1 : 0));
  }

  /**
   * Counts a status name of the app (any case) in another category, e.g. "Blocked" as paused; every task of the
   * app holding that name now or in its history is derived again in the same change, so figures agree at once.
   */
  mapStatus(appId: string, statusName: string, category: TaskStatus, by: ChangeAuthority = {}): Promise<{ tasks: number }> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const source = await this.boardSourceOf(appId, by, transaction);
      const name = statusName.trim().toLowerCase();
      if (!name) throw invalid('The status name is empty; give it as the tracker shows it, e.g. "Blocked"');
      const existing = await AppStatusOverride.findOne({ where: { app_id: source.id, status_name: name }, transaction, lock: transaction.LOCK.UPDATE });
      if (existing) await existing.update({ category }, { transaction });
      else await AppStatusOverride.create({ app_id: source.id, status_name: name, category, created_at: this.now() }, { transaction });
      change.wrote('app_status_overrides');
      const tasks = await rederiveTasks(change, source.id, name);
      change.audit({ organizationId: source.organization_id, actor: by.actor ?? OPERATOR, action: 'app.status_mapped', target: { type: 'app', id: source.id }, details: { status: statusName.trim(), category } });
      return { tasks };
    });
  }

  /** Links a member's account on the app by hand, for payloads that carry no e-mail (docs/trackers.md#accounts). */
  linkUser(appId: string, user: string, externalId: string, by: ChangeAuthority = {}): Promise<AccountLink> {
    return new AccountLinkWriter(this.changes, this.now).linkUser(APP_LINKS, appId, user, externalId, by);
  }

  /**
   * Links the accounts a provider's directory lists (Slack's `users.list`: npm run import -- slack) to the members
   * with the same e-mail, in one change, each link audit-logged as `link-user` does. A member already linked keeps
   * their account, and an account already linked to someone keeps its member; accounts whose e-mail is no member's
   * are left alone, never guessed.
   */
  linkByEmail(appId: string, accounts: { externalId: string; email: string }[], by: ChangeAuthority = {}): Promise<{ linked: number; unchanged: number; unmatched: number }> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const app = await this.appOf(appId, by, transaction);
      const members = await membersByEmail(app.organization_id, accounts.map((a) => a.email), transaction);
      const links = await UserApp.findAll({ where: { app_id: app.id }, attributes: ['user_id', 'external_user_id'], transaction });
      const linkedMembers = new Set(links.map((l) => l.user_id));
      const linkedAccounts = new Set(links.map((l) => l.external_user_id));
      const counts = { linked: 0, unchanged: 0, unmatched: 0 };
      const made: { user_id: string; app_id: string; external_user_id: string; created_at: Date }[] = [];
      for (const account of accounts) {
        const userId = members.get(normalizeEmail(account.email));
        if (!userId) counts.unmatched++;
        else if (linkedMembers.has(userId) || linkedAccounts.has(account.externalId)) counts.unchanged++;
        else {
          made.push({ user_id: userId, app_id: app.id, external_user_id: account.externalId, created_at: this.now() });
          linkedMembers.add(userId);
          linkedAccounts.add(account.externalId);
          change.audit({ organizationId: app.organization_id, actor: by.actor ?? OPERATOR, action: 'app.user_linked', target: { type: 'app', id: app.id }, details: { user_id: userId, external_user_id: account.externalId } });
        }
      }
      if (made.length) {
        await UserApp.bulkCreate(made, { transaction });
        change.wrote('user_apps');
      }
      return { ...counts, linked: made.length };
    });
  }

  /**
   * The app a delivery is addressed to. Read from the primary once per version of the apps table, which every
   * change of an app raises (on every instance before the change is answered), so a rotation or a disabling bites
   * at once while a burst of deliveries reads the app once.
   */
  async find(appId: string): Promise<App | null> {
    const versions = await DataVersions.for(App.sequelize!).of(['apps']);
    return this.addressed.getOrCompute(`${versions}|${appId}`, () => App.findByPk(appId, { useMaster: true }));
  }

  /** The secrets a delivery may be signed with now: the current one, and the previous one during its grace. */
  secretsOf(app: App, now = this.now()): string[] {
    return openRotated(this.secrets, { current: app.webhook_secret, previous: app.previous_webhook_secret, previousExpiresAt: app.previous_secret_expires_at }, now);
  }

  private async appOf(appId: string, by: ChangeAuthority, transaction?: Transaction): Promise<App> {
    const app = await App.findByPk(appId, { transaction, lock: transaction ? transaction.LOCK.UPDATE : undefined });
    if (!app || !isWithinAuthority(by, app.organization_id)) throw notFound(`No app ${appId} (see npm run apps -- list)`);
    return app;
  }

  /** Boards belong to an app, or to a git app (its repositories' issues). */
  private async boardSourceOf(appId: string, by: ChangeAuthority, transaction?: Transaction): Promise<BoardSource> {
    const source = appId.startsWith('gapp_')
      ? await GitApp.findByPk(appId, { attributes: ['id', 'organization_id'], transaction })
      : await App.findByPk(appId, { attributes: ['id', 'organization_id', 'provider'], transaction });
    if (!source || !isWithinAuthority(by, source.organization_id)) throw notFound(`No app or git app ${appId} (see npm run apps -- list, npm run gitapps -- list)`);
    if (!(source instanceof App)) return { id: source.id, organization_id: source.organization_id, provider: 'git', bringsOperations: false, namesRepository: false };
    const provider = this.providers.find(source.provider);
    const bringsOperations = provider?.category === 'incidents' || provider?.category === 'deployments';
    return { id: source.id, organization_id: source.organization_id, provider: source.provider, bringsOperations, namesRepository: provider?.boardsNameRepositories === true };
  }
}

/** What owns a board: an app of a provider, or a git app (its repositories' issues). */
interface BoardSource {
  id: string;
  organization_id: string;
  provider: string;
  /** Incident tools and the deployments API: their boards go to repositories. */
  bringsOperations: boolean;
  /** Whether a board's name may itself name a repository (the deployments API's callers name theirs). */
  namesRepository: boolean;
}

/** What an incident tool's or the deployments API's board brought, placed where its mappings now say (docs/incidents.md#mapping). */
async function placeOperations(change: Change, source: BoardSource, board: string): Promise<void> {
  await placeBoardOperations(change, { appId: source.id, organizationId: source.organization_id, namesRepository: source.namesRepository }, board);
}

/** The tasks a board brought, placed in a team (or in none). */
async function placeTasks(change: Change, appId: string, board: string, teamId: string | null): Promise<void> {
  const [placed] = await Task.update({ team_id: teamId }, { where: { app_id: appId, board_key: board, team_id: teamId === null ? { [Op.ne]: null } : { [Op.or]: [{ [Op.is]: null }, { [Op.ne]: teamId }] } }, transaction: change.transaction });
  if (placed) change.wrote('tasks');
}
