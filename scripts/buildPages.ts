/**
 * Bundles the pages' TypeScript into the scripts they load, in dist/settings-page/: the settings page's
 * (src/settings/page/script) settings.js and sign-in-link.js, and the dashboards page's (src/dashboardsPage/script)
 * dashboards.js, each with what it takes from src/pages/script. Run by `npm run build` (scripts/build.ts), by
 * `npm run dev` and before the tests (test/support/globalSetup.ts). esbuild only strips the types:
 * tsconfig.pages.json type-checks them, against the server's router.
 *
 * The pages may take from the server only types (erased here) and the wire's shared limits: a bundle that would
 * hold any other file of the service is refused, so no server code, secret or configuration reaches the browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../src/projectRoot';
import { DASHBOARDS_SCRIPT_DIR } from '../src/dashboardsPage/pageFiles';
import { PAGE_BUNDLE_DIR } from '../src/pages/bundles';
import { PAGE_SCRIPT_DIR } from '../src/settings/pageFiles';

/** What a bundle may be made of, as paths from the project's root. */
const ALLOWED_INPUTS = [/^src\/settings\/page\/script\//, /^src\/dashboardsPage\/script\//, /^src\/pages\/script\//, /^src\/wire\/limits\.ts$/, /(^|\/)node_modules\/@trpc\/(client|server)\//, /(^|\/)node_modules\/(chart\.js|@kurkle\/color)\//];

export async function buildPages(): Promise<void> {
  const result = await build({
    absWorkingDir: projectRoot(),
    entryPoints: [
      { in: path.join(PAGE_SCRIPT_DIR, 'settings.ts'), out: 'settings' },
      { in: path.join(PAGE_SCRIPT_DIR, 'signInLink.ts'), out: 'sign-in-link' },
      { in: path.join(DASHBOARDS_SCRIPT_DIR, 'main.ts'), out: 'dashboards' },
    ],
    outdir: PAGE_BUNDLE_DIR,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const strangers = Object.keys(result.metafile.inputs).filter((input) => !ALLOWED_INPUTS.some((allowed) => allowed.test(input)));
  if (strangers.length) throw new Error(`The pages' bundles would hold code of the service; import only types from it:\n  ${strangers.join('\n  ')}`);
  fs.mkdirSync(PAGE_BUNDLE_DIR, { recursive: true });
  // Unchanged sources rewrite nothing, as with the server's incremental build.
  for (const file of result.outputFiles) {
    const unchanged = fs.existsSync(file.path) && fs.readFileSync(file.path).equals(file.contents);
    if (!unchanged) fs.writeFileSync(file.path, file.contents);
  }
}

if (require.main === module) {
  buildPages().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
