/** What a TypeScript frontend imports: `import type { AppRouter } from '<this package>'`. */
export type { AppRouter } from './procedures';
