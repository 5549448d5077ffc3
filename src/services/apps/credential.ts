/**
 * What reads a provider's API (docs/ingest.md#credentials-for-reading-the-providers-api): a token, or a GitHub App's
 * private key with the installation it acts for. Kept apart from the store (credentials.ts) so that what only reads
 * one (the history importers' sources) depends on nothing else.
 */
export type Credential = { kind: 'token'; token: string } | { kind: 'github_app'; appId: string; installationId: string; privateKey: string };
