import { createPrivateKey } from 'node:crypto';
import { Transaction } from 'sequelize';
import { AiVendorSource, App, ConnectionCredential, GitApp } from '../../../db/models';
import { invalid, notFound } from '../../errors';
import { OPERATOR } from '../../persistence/changes/auditRecord';
import type { ChangeRunner } from '../../persistence/changes/change';
import type { SecretBox } from '../../secrets/secretBox';
import { ChangeAuthority, isWithinAuthority } from '../audit/actor';
import { AppWriter } from './apps';
import type { KnownProvider, ProviderCatalog } from './catalog';
import type { Credential } from './credential';

/** An app or a git app: whose provider's API the credential reads. */
export interface Connection {
  type: 'app' | 'git_app';
  id: string;
}

export type { Credential } from './credential';

/** What a stored credential is shown as: never its value. */
export interface CredentialReceipt {
  id: string;
  kind: Credential['kind'];
  updated_at: string;
}

/** The most a token or a private key file may hold: a 4096-bit RSA key in PEM is about 3.3 KB. */
export const MAX_CREDENTIAL_BYTES = 10 * 1024;

/** GitHub's App and installation ids: positive integers, as their digits. */
const GITHUB_ID = /^[1-9][0-9]{0,17}$/;
const PEM_PRIVATE_KEY = /^-----BEGIN ([A-Z0-9]+ )?PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END \1PRIVATE KEY-----$/;

/**
 * The credentials the history importers read providers' APIs with (docs/ingest.md#credentials-for-reading-the-providers-api),
 * one per app or git app, set by `gitapps set-credential` and `apps set-credential`: sealed with the service's
 * key, replaced by the next set, each set one change with its audit entry, whose details name the kind and ids,
 * never the secret. An AI vendor's app keeps its credential where its pulls read it (ai_vendor_sources), set the
 * way `apps set-secret` sets it.
 */
export class ConnectionCredentials {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly secrets: SecretBox,
    readonly providers: ProviderCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async setCredential(connection: Connection, input: Credential, by: ChangeAuthority = {}): Promise<CredentialReceipt> {
    const credential = checked(input);
    if (connection.type === 'app') {
      const app = await App.findByPk(connection.id, { attributes: ['id', 'organization_id', 'provider'] });
      if (app && isWithinAuthority(by, app.organization_id) && this.providers.vendor(app.provider)) return this.setVendorCredential(app, credential, by);
    }
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const owner = await this.ownerOf(connection, by, transaction);
      const accepted = this.accepts(connection, owner, credential);
      const fields = {
        organization_id: owner.organization_id,
        kind: accepted.kind,
        sealed_secret: this.secrets.seal(accepted.kind === 'token' ? accepted.token : accepted.privateKey),
        github_app_id: accepted.kind === 'github_app' ? accepted.appId : null,
        installation_id: accepted.kind === 'github_app' ? accepted.installationId : null,
        updated_at: this.now(),
      };
      const existing = await ConnectionCredential.findByPk(owner.id, { transaction, lock: transaction.LOCK.UPDATE });
      const stored = existing
        ? await existing.update(fields, { transaction })
        : await ConnectionCredential.create({ connection_id: owner.id, ...fields, created_at: this.now() }, { transaction });
      change.wrote('connection_credentials');
      change.audit({
        organizationId: owner.organization_id,
        actor: by.actor ?? OPERATOR,
        action: connection.type === 'git_app' ? 'git_app.credential_set' : 'app.credential_set',
        target: { type: connection.type, id: owner.id },
        details: { kind: stored.kind, ...(stored.kind === 'github_app' ? { github_app_id: stored.github_app_id, installation_id: stored.installation_id } : {}) },
      });
      return { id: owner.id, kind: stored.kind, updated_at: stored.updated_at.toISOString() };
    });
  }

  /**
   * The credential of an app or git app, opened, for reading its provider's API; undefined when none was set. Read
   * from the primary, so a credential just replaced is the one used.
   */
  async credentialOf(connectionId: string): Promise<Credential | undefined> {
    const row = await ConnectionCredential.findByPk(connectionId, { useMaster: true });
    if (!row) return undefined;
    const secret = this.secrets.open(row.sealed_secret);
    if (row.kind === 'token') return { kind: 'token', token: secret };
    if (row.github_app_id === null || row.installation_id === null) throw new Error(`The GitHub App credential of ${connectionId} lacks its App or installation id`);
    return { kind: 'github_app', appId: row.github_app_id, installationId: row.installation_id, privateKey: secret };
  }

  /** An AI vendor's app: its pulls' credential replaced as `apps set-secret` replaces it. */
  private async setVendorCredential(app: App, credential: Credential, by: ChangeAuthority): Promise<CredentialReceipt> {
    if (credential.kind !== 'token') throw invalid(`${this.providers.nameOf(app.provider)} is read with the key or token the vendor issued: give it with --token-file <file>`);
    await new AppWriter(this.changes, this.secrets, this.providers, this.now).setSecret(app.id, credential.token, by);
    const source = await AiVendorSource.findByPk(app.id, { useMaster: true });
    return { id: app.id, kind: 'token', updated_at: (source?.updated_at ?? this.now()).toISOString() };
  }

  private async ownerOf(connection: Connection, by: ChangeAuthority, transaction: Transaction): Promise<App | GitApp> {
    const options = { attributes: ['id', 'organization_id', 'provider'], transaction, lock: transaction.LOCK.UPDATE };
    const owner = connection.type === 'git_app' ? await GitApp.findByPk(connection.id, options) : await App.findByPk(connection.id, options);
    if (owner && isWithinAuthority(by, owner.organization_id)) return owner;
    throw notFound(connection.type === 'git_app' ? `No git app ${connection.id} (see npm run gitapps -- list)` : `No app ${connection.id} (see npm run apps -- list)`);
  }

  /** The credential, when the connection's provider is read with one of its kind; a refusal naming those that are. */
  private accepts(connection: Connection, owner: App | GitApp, credential: Credential): Credential {
    const provider = this.providers.find(owner.provider);
    const what = connection.type === 'git_app' ? 'Git app' : 'App';
    if (!provider?.apiCredential) {
      throw invalid(`${what} ${owner.id} (${owner.provider}) is not read from its provider's API, so it takes no credential; those that do: ${this.takers(connection.type)}`);
    }
    if (credential.kind === 'github_app' && !provider.apiCredential.githubApp) {
      throw invalid(`A GitHub App's key is for a GitHub git app; ${provider.name} is read with ${provider.apiCredential.name}: give it with --token-file <file>`);
    }
    return credential;
  }

  /** The providers whose connections of this type take a credential, for a refusal. */
  private takers(type: Connection['type']): string {
    const isGit = (p: KnownProvider) => p.category === 'git';
    const read = this.providers.readByApi.filter((p) => isGit(p) === (type === 'git_app')).map((p) => p.id);
    if (type === 'git_app') return `${read.join(', ')} git apps`;
    const vendors = this.providers.appProviders.filter((p) => p.puller).map((p) => p.id);
    return `${read.join(', ')} apps, and the AI vendors' (${vendors.join(', ')})`;
  }
}

/** The connections among `ids` that have a credential stored: what lists show instead of the value. */
export async function connectionsWithCredential(ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await ConnectionCredential.findAll({ where: { connection_id: ids }, attributes: ['connection_id'] });
  return new Set(rows.map((r) => r.connection_id));
}

/** The credential as stored: trimmed, in the form its kind takes, or a refusal that says what to fix. */
function checked(input: Credential): Credential {
  if (input.kind === 'token') return { kind: 'token', token: checkedToken(input.token) };
  for (const [flag, value] of [['--github-app-id', input.appId], ['--installation-id', input.installationId]]) {
    if (!GITHUB_ID.test(value.trim())) throw invalid(`${flag} must be a positive integer, as GitHub shows it (got '${value}')`);
  }
  return { kind: 'github_app', appId: input.appId.trim(), installationId: input.installationId.trim(), privateKey: checkedPrivateKey(input.privateKey) };
}

function checkedToken(text: string): string {
  const token = text.trim();
  if (!token) throw invalid('The token file is empty: it must hold the token the provider issued');
  if (Buffer.byteLength(token) > MAX_CREDENTIAL_BYTES) throw invalid(`The token file holds more than ${MAX_CREDENTIAL_BYTES / 1024} KB: it must hold one token and nothing else`);
  if (/\s/.test(token)) throw invalid('The token file holds whitespace inside the token: it must hold one token and nothing else');
  if (!/^[\x21-\x7e]+$/.test(token)) throw invalid('The token must be printable ASCII characters, as the provider shows it');
  return token;
}

function checkedPrivateKey(text: string): string {
  const pem = text.trim();
  if (!pem) throw invalid("The private key file is empty: it must hold the GitHub App's private key (.pem)");
  if (Buffer.byteLength(pem) > MAX_CREDENTIAL_BYTES) throw invalid(`The private key file holds more than ${MAX_CREDENTIAL_BYTES / 1024} KB: it must hold one PEM private key`);
  if (!PEM_PRIVATE_KEY.test(pem)) throw invalid("The private key file must hold a PEM private key (-----BEGIN RSA PRIVATE KEY----- … -----END RSA PRIVATE KEY-----), as GitHub downloads it");
  try {
    createPrivateKey(pem);
  } catch {
    throw invalid("The private key file holds a PEM block that is not a usable private key: give the GitHub App's key as GitHub downloads it (not encrypted)");
  }
  return pem;
}
