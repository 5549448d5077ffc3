/** The word lists generated names, titles and messages are drawn from. */

export type AppCategory = 'issues' | 'chat' | 'git';
export type GitProvider = 'github' | 'gitlab' | 'bitbucket' | 'git';

export const EXTRA_ORGS: ReadonlyArray<readonly [name: string, slug: string]> = [
  ['Initech', 'initech'],
  ['Umbrella', 'umbrella'],
  ['Stark Industries', 'stark'],
  ['Wayne Enterprises', 'wayne'],
  ['Hooli', 'hooli'],
  ['Vandelay Industries', 'vandelay'],
  ['Soylent', 'soylent'],
  ['Cyberdyne', 'cyberdyne'],
  ['Wonka Industries', 'wonka'],
  ['Tyrell Corp', 'tyrell'],
  ['Massive Dynamic', 'massive'],
  ['Aperture Science', 'aperture'],
  ['Black Mesa', 'blackmesa'],
  ['Oscorp', 'oscorp'],
  ['Pied Piper', 'piedpiper'],
  ['Dunder Mifflin', 'dundermifflin'],
  ['Blue Sun', 'bluesun'],
  ['Monarch Solutions', 'monarch'],
  ['Nakatomi Trading', 'nakatomi'],
  ['Gringotts', 'gringotts'],
];

export const FIRST_NAMES = [
  'Aaliyah', 'Aarav', 'Abigail', 'Adrian', 'Aisha', 'Alejandro', 'Alice', 'Amara', 'Amelia', 'Andre',
  'Anya', 'Arjun', 'Beatriz', 'Ben', 'Bianca', 'Carlos', 'Chen', 'Chloe', 'Daniel', 'Diego',
  'Elena', 'Elif', 'Emeka', 'Emma', 'Farah', 'Felix', 'Fatima', 'Gabriel', 'Hana', 'Hiroshi',
  'Ines', 'Isaac', 'Ivy', 'Jamal', 'Jana', 'Javier', 'Jin', 'Jonas', 'Julia', 'Kai',
  'Kofi', 'Lars', 'Layla', 'Leo', 'Lina', 'Lucas', 'Maya', 'Mateo', 'Mei', 'Mohammed',
  'Nadia', 'Nia', 'Noah', 'Nora', 'Olivia', 'Omar', 'Oskar', 'Priya', 'Quinn', 'Rafael',
  'Ravi', 'Rosa', 'Sakura', 'Samir', 'Sara', 'Sebastian', 'Sofia', 'Tariq', 'Thea', 'Tomas',
  'Uma', 'Valentina', 'Victor', 'Wei', 'Xavier', 'Yara', 'Yusuf', 'Zara', 'Zoe', 'Zhang',
];

export const LAST_NAMES = [
  'Abe', 'Adeyemi', 'Alvarez', 'Andersson', 'Bauer', 'Becker', 'Bianchi', 'Brown', 'Chatterjee', 'Chen',
  'Costa', 'Dubois', 'Eriksen', 'Fernandes', 'Fischer', 'Garcia', 'Gomez', 'Gupta', 'Haddad', 'Hansen',
  'Hernandez', 'Ivanova', 'Jansen', 'Johnson', 'Kamau', 'Kim', 'Kowalski', 'Kumar', 'Larsen', 'Lee',
  'Lopez', 'Martin', 'Mendes', 'Meyer', 'Moreau', 'Mueller', 'Nakamura', 'Nguyen', 'Novak', 'Nowak',
  'Okafor', 'Oliveira', 'Olsen', 'Park', 'Patel', 'Petrov', 'Popescu', 'Rahman', 'Reyes', 'Rossi',
  'Santos', 'Sato', 'Schmidt', 'Silva', 'Singh', 'Smith', 'Suzuki', 'Tanaka', 'Taylor', 'Thomas',
  'Torres', 'Tran', 'Uddin', 'Vargas', 'Virtanen', 'Wagner', 'Walker', 'Wang', 'Weber', 'Williams',
  'Wilson', 'Wong', 'Yamamoto', 'Yilmaz', 'Young', 'Zhang', 'Zhou', 'Zimmermann', 'Osei', 'Mensah',
];

export const TEAM_NAMES = [
  'Payments', 'Search', 'Identity', 'Data', 'Infrastructure', 'Growth', 'Checkout', 'Billing',
  'Notifications', 'Onboarding', 'Analytics', 'Developer Experience', 'Security', 'Reliability',
  'Frontend', 'API', 'Integrations', 'Machine Learning', 'Design Systems', 'Accounts', 'Messaging',
  'Storage', 'Networking', 'Observability', 'Release Engineering', 'Quality', 'Marketplace', 'Pricing',
  'Logistics', 'Fraud', 'Compliance', 'Internal Tools', 'Documentation', 'Partnerships', 'Localization',
  'Performance', 'Web', 'Desktop', 'Edge', 'Streaming', 'Recommendations', 'Ads', 'Content',
  'Support Tools', 'Experimentation', 'Data Platform', 'Ingestion', 'Core', 'Platform', 'Mobile',
];

export const MEMBER_TITLES = [
  'Backend Engineer', 'Backend Engineer', 'Senior Backend Engineer', 'Frontend Engineer', 'Senior Frontend Engineer',
  'Full-stack Engineer', 'Mobile Engineer', 'iOS Engineer', 'Android Engineer', 'Site Reliability Engineer',
  'Data Engineer', 'Machine Learning Engineer', 'QA Engineer', 'Security Engineer', 'DevOps Engineer',
  'Staff Engineer', 'Principal Engineer', 'Software Engineer', 'Software Engineer', 'Junior Software Engineer',
  'Product Designer', 'Product Manager', 'Technical Writer', 'Engineering Intern',
];
export const MANAGER_TITLES = ['Engineering Manager', 'Engineering Manager', 'Senior Engineering Manager', 'Tech Lead Manager', 'Director of Engineering'];

export const APP_PROVIDERS: ReadonlyArray<readonly [provider: string, category: AppCategory, name: string]> = [
  ['jira', 'issues', 'Jira'],
  ['linear', 'issues', 'Linear'],
  ['asana', 'issues', 'Asana'],
  ['slack', 'chat', 'Slack'],
  ['msteams', 'chat', 'Microsoft Teams'],
  ['github', 'git', 'GitHub'],
  ['gitlab', 'git', 'GitLab'],
  ['bitbucket', 'git', 'Bitbucket'],
];

export const GIT_PROVIDERS: ReadonlyArray<readonly [GitProvider, string, number]> = [
  ['github', 'GitHub', 5],
  ['gitlab', 'GitLab', 3],
  ['bitbucket', 'Bitbucket', 2],
  ['git', 'Git', 1],
];

export const REPO_NAMES = [
  'api', 'web', 'core', 'gateway', 'auth-service', 'billing', 'payments', 'search', 'mobile-app', 'ios',
  'android', 'frontend', 'backend', 'infra', 'terraform', 'helm-charts', 'docs', 'design-system',
  'data-pipeline', 'etl', 'notifications', 'scheduler', 'worker', 'cli', 'sdk-js', 'sdk-python',
  'analytics', 'admin', 'dashboard', 'monorepo', 'ml-models', 'feature-flags', 'config', 'deploy',
  'ci-templates', 'observability', 'ledger', 'inventory', 'checkout', 'identity', 'storage', 'edge-proxy',
  'website', 'emails', 'search-indexer', 'event-bus', 'rate-limiter', 'image-service', 'reporting', 'exports',
];
export const BRANCHES: ReadonlyArray<readonly [string, number]> = [['main', 80], ['master', 12], ['develop', 5], ['trunk', 3]];

export const VERBS = ['Fix', 'Add', 'Update', 'Refactor', 'Remove', 'Improve', 'Simplify', 'Optimize', 'Document', 'Test', 'Rename', 'Extract', 'Handle', 'Support', 'Validate', 'Cache', 'Retry', 'Log', 'Migrate', 'Clean up'];
export const OBJECTS = [
  'login flow', 'session handling', 'retry logic', 'pagination', 'rate limiter', 'webhook delivery', 'search index',
  'user settings page', 'billing export', 'invoice PDF', 'feature flags', 'onboarding emails', 'health checks',
  'database migrations', 'connection pool', 'error messages', 'API client', 'CI pipeline', 'Docker image',
  'dependency versions', 'date parsing', 'timezone handling', 'cache invalidation', 'audit log', 'password reset',
  'notification preferences', 'dark mode', 'accessibility labels', 'metrics dashboard', 'background jobs',
  'CSV import', 'OAuth callback', 'team permissions', 'build cache', 'flaky tests', 'logging format',
];
export const BUG_SYMPTOMS = ['fails on empty input', 'returns 500 for expired sessions', 'is slow for large accounts', 'shows the wrong timezone', 'drops the last page', 'times out under load', 'leaks memory', 'ignores the locale', 'double-sends notifications', 'crashes on Android 12'];
export const EPIC_THEMES = ['Q1 reliability push', 'Self-serve onboarding', 'Billing v2', 'Enterprise SSO', 'Mobile redesign', 'Search relevance', 'Data retention', 'Performance budget', 'Observability rollout', 'Accessibility audit', 'API v2', 'Cost reduction', 'Internationalization', 'Zero-downtime deploys'];
export const BOT_AUTHORS = ['dependabot[bot]', 'renovate[bot]', 'github-actions[bot]', 'Release Bot', 'Jenkins CI'];
export const EXTERNAL_AUTHORS = ['External Contributor', 'Contractor', 'Former Employee'];

export const VIEW_SUFFIXES = ['overview', 'weekly review', 'quarterly review', 'deep dive', 'scratchpad', 'board', 'report', 'tracker'];

export const INCIDENT_TITLES = [
  'Elevated 5xx rate on checkout',
  'Login fails for SSO users',
  'Search results stale',
  'Payment webhooks delayed',
  'Memory leak in worker pool',
  'Dashboard timeouts',
  'Mobile push notifications not sent',
  'Exports stuck in queue',
];

/** Claude Code's co-author trailer, as it ends the commits it writes. */
export const CLAUDE_CODE_TRAILER = '\n\nCo-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>';
