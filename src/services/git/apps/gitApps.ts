import { OPERATOR } from '../../../persistence/changes/auditRecord';
import { ChangeAuthority, isWithinAuthority } from '../../audit/actor';
import { randomBytes } from 'node:crypto';
import { GitApp, Organization } from '../../../../db/models';
import { openRotated, previousSecretGraceEnd, PREVIOUS_SECRET_GRACE_MS, SecretBox } from '../../../secrets/secretBox';
import type { ChangeRunner } from '../../../persistence/changes/change';
import { notFound } from '../../../errors';
import { newId } from '../../../persistence/changes/ids';
import type { ProviderCatalog } from '../../apps/catalog';

export interface GitAppWithSecret {
  gitApp: GitApp;
  /** The plain webhook secret: shown once, stored sealed. */
  secret: string;
}

/** 256 random bits, URL-safe: GitHub and GitLab accept any string as the secret (token). */
const newSecret = () => randomBytes(32).toString('base64url');

/**
 * Git apps made by the `gitapps` CLI (docs/architecture.md#writers): one organization's connection to a git provider's
 * account (the registry's git providers: `providers`), with the webhook secret the provider signs (GitHub) or sends
 * (GitLab) with every delivery.
 */
export class GitAppWriter {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly secrets: SecretBox,
    readonly providers: ProviderCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Refuses a provider that is not a registered git provider (400 naming the choices). */
  create(organizationId: string, provider: string, name: string, by: ChangeAuthority = {}): Promise<GitAppWithSecret> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const { id } = this.providers.gitProvider(provider);
      if (!(await Organization.findByPk(organizationId, { transaction }))) throw notFound(`No organization ${organizationId}`);
      const secret = newSecret();
      const gitApp = await GitApp.create(
        {
          id: newId('gapp'),
          organization_id: organizationId,
          provider: id,
          name,
          is_active: true,
          created_at: this.now(),
          webhook_secret: this.secrets.seal(secret),
        },
        { transaction },
      );
      change.wrote('git_apps');
      change.audit({ organizationId, actor: by.actor ?? OPERATOR, action: 'git_app.created', target: { type: 'git_app', id: gitApp.id }, details: { provider, name } });
      return { gitApp, secret };
    });
  }

  /** A new secret; the previous one keeps verifying for PREVIOUS_SECRET_GRACE_MS. */
  rotateSecret(gitAppId: string, by: ChangeAuthority = {}): Promise<GitAppWithSecret> {
    return this.changes.run(async ({ transaction, audit }) => {
      const gitApp = await GitApp.findByPk(gitAppId, { transaction });
      if (!gitApp || !isWithinAuthority(by, gitApp.organization_id)) throw notFound(`No git app ${gitAppId}`);
      const secret = newSecret();
      await gitApp.update(
        {
          webhook_secret: this.secrets.seal(secret),
          previous_webhook_secret: gitApp.webhook_secret,
          previous_secret_expires_at: gitApp.webhook_secret ? new Date(this.now().getTime() + PREVIOUS_SECRET_GRACE_MS) : null,
        },
        { transaction },
      );
      audit({ organizationId: gitApp.organization_id, actor: by.actor ?? OPERATOR, action: 'git_app.secret_rotated', target: { type: 'git_app', id: gitApp.id } });
      return { gitApp, secret };
    });
  }

  /**
   * Refuses the secret a rotation replaced at once, instead of at the end of its grace: for a secret that leaked.
   * `ended` is false, and nothing is written, when no previous secret was still accepted.
   */
  endSecretGrace(gitAppId: string, by: ChangeAuthority = {}): Promise<{ gitApp: GitApp; ended: boolean }> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const gitApp = await GitApp.findByPk(gitAppId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!gitApp || !isWithinAuthority(by, gitApp.organization_id)) throw notFound(`No git app ${gitAppId}`);
      if (!previousSecretGraceEnd(gitApp, this.now())) return { gitApp, ended: false };
      await gitApp.update({ previous_webhook_secret: null, previous_secret_expires_at: null }, { transaction });
      change.wrote('git_apps');
      change.audit({ organizationId: gitApp.organization_id, actor: by.actor ?? OPERATOR, action: 'git_app.secret_grace_ended', target: { type: 'git_app', id: gitApp.id } });
      return { gitApp, ended: true };
    });
  }

  /** The git app a delivery is addressed to, read from the primary so a rotation bites at once. */
  find(gitAppId: string): Promise<GitApp | null> {
    return GitApp.findByPk(gitAppId, { useMaster: true });
  }

  /** The secrets a delivery may be signed with now: the current one, and the previous one during its grace. */
  secretsOf(gitApp: GitApp, now = this.now()): string[] {
    return openRotated(
      this.secrets,
      { current: gitApp.webhook_secret, previous: gitApp.previous_webhook_secret, previousExpiresAt: gitApp.previous_secret_expires_at },
      now,
    );
  }
}
