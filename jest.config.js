/** Packages published as ES modules only, which Node requires as they are and jest's sandbox cannot. */
const ESM_ONLY = ['openid-client', 'oauth4webapi', 'jose', '@octokit/[a-z-]+', 'before-after-hook', 'universal-user-agent', 'universal-github-app-jwt', 'json-with-bigint', 'toad-cache', 'content-type'].join('|');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // Type-checking is `tsc --noEmit` (part of `npm test`); swc only strips types, about 3x faster than ts-jest.
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
    // The OTLP exporters load http with `import('http')`, which jest's module sandbox cannot run; compiled to
    // CommonJS it becomes a require. Only that package is transformed.
    'otlp-exporter-base/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    // openid-client and what it loads are ES modules only; Node requires them as they are, jest's sandbox cannot.
    // So are Octokit's packages (the GitHub history importer's client) and what they load.
    [`/node_modules/(${ESM_ONLY})/.+\\.js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(@opentelemetry/otlp-exporter-base|${ESM_ONLY})/)`],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Before any test: the pages' bundles and the build the CLIs' tests run (test/support/cli.ts), from the current
  // TypeScript, and the run's name for its test databases' templates (test/support/databaseTemplates.ts), which are
  // removed after it.
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  // Every response a test causes under /v1 is checked against the OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/test/support/setupWireContract.ts'],
  testTimeout: 60_000,
  // Each test file gets its own database; two workers match the machines' two cores.
  maxWorkers: 2,
};
