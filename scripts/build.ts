/**
 * Builds what `npm start` runs: each TypeScript file of src/, db/ and scripts/ becomes one CommonJS file in dist/
 * at the same place (dist/src/main.js, dist/db/migrations/…, dist/scripts/bench/floor/server.js, each with its source
 * map), then the pages' bundles (scripts/buildPages.ts). esbuild only strips the types, so a first start does not wait
 * on a type-check: `npm run typecheck` (part of `npm test`, so of CI) does that.
 *
 * Nothing is bundled: modules keep their own files, so what resolves a path from its file's place (src/projectRoot.ts)
 * or loads a module only when needed (the tracing, openid-client) works as it does from the sources under tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../src/projectRoot';
import { buildPages } from './buildPages';

const SOURCE_DIRS = ['src', 'db', 'scripts'];

/** The pages' scripts run in browsers: buildPages bundles them; as tsconfig.json, this build leaves them out. */
const BROWSER_DIRS = ['src/settings/page/script', 'src/dashboardsPage/script', 'src/pages/script'];

const OUT_DIR = 'dist';

function sourceFiles(dir: string): string[] {
  if (BROWSER_DIRS.includes(dir)) return [];
  return fs.readdirSync(path.join(projectRoot(), dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

export async function buildServer(): Promise<void> {
  const result = await build({
    absWorkingDir: projectRoot(),
    entryPoints: SOURCE_DIRS.flatMap(sourceFiles),
    outdir: OUT_DIR,
    outbase: '.',
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // `import()` becomes a require, as tsc's CommonJS output has it: the relative paths keep resolving without
    // extensions, and openid-client (ES modules only) is required as Node 20 requires ES modules.
    supported: { 'dynamic-import': false },
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  // Unchanged sources rewrite nothing, so a second start touches no file.
  for (const file of result.outputFiles) {
    const unchanged = fs.existsSync(file.path) && fs.readFileSync(file.path).equals(file.contents);
    if (unchanged) continue;
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, file.contents);
  }
}

if (require.main === module) {
  Promise.all([buildServer(), buildPages()]).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
