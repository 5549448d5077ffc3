import type { AuditAction, AuditTargetType } from '../../persistence/changes/auditRecord';

/**
 * Where a connection keeps its members' accounts: an app's account ids (`user_apps`), a git app's user names
 * (`user_git_apps`). One member has one account per connection, and an account is one member's.
 */
export interface LinkTable {
  table: 'user_apps' | 'user_git_apps';
  connectionColumn: 'app_id' | 'git_app_id';
  accountColumn: 'external_user_id' | 'username';
  /** How messages name the connection and the account: "app", "account id"; "git app", "user name". */
  connectionNoun: string;
  accountNoun: string;
  /** The CLI that lists the connections, for a message about an unknown one. */
  listCommand: string;
  audit: { action: AuditAction; target: AuditTargetType };
}

export const APP_LINKS: LinkTable = {
  table: 'user_apps',
  connectionColumn: 'app_id',
  accountColumn: 'external_user_id',
  connectionNoun: 'app',
  accountNoun: 'account',
  listCommand: 'npm run apps -- list',
  audit: { action: 'app.user_linked', target: 'app' },
};

export const GIT_APP_LINKS: LinkTable = {
  table: 'user_git_apps',
  connectionColumn: 'git_app_id',
  accountColumn: 'username',
  connectionNoun: 'git app',
  accountNoun: 'user name',
  listCommand: 'npm run gitapps -- list',
  audit: { action: 'git_app.user_linked', target: 'git_app' },
};
