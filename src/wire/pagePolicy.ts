import helmet from 'helmet';

/**
 * The content security policy of the pages served to people (/docs, /settings, /auth): helmet's app-wide one
 * without upgrade-insecure-requests. On plain HTTP from any host but localhost, chromium would otherwise rewrite the
 * pages' relative URLs (scripts, styles, calls, redirects) to https and nothing would load; over HTTPS the directive
 * changes nothing, every URL being relative.
 */
export const pageSecurityPolicy = () => helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } });
