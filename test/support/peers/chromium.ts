import fs from 'node:fs';

/** Debian's chromium, driven by playwright-core (it downloads no browser of its own). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_BROWSER = fs.existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env.REQUIRE_BROWSER === '1';

/**
 * `describe` for a file's browser tests: chosen at load time, so a laptop without chromium reports them as skipped,
 * not passed; with REQUIRE_BROWSER=1 (CI) they run, and fail at once without a browser.
 */
export function describeInBrowser(file: string): jest.Describe {
  if (!HAS_BROWSER && !REQUIRE_BROWSER) {
    console.warn(`${file}: no chromium at ${CHROMIUM}; browser tests skipped. Install it with \`apt-get install chromium\` (or set CHROMIUM_PATH).`);
    return describe.skip;
  }
  return describe;
}

/** Throws what to install when a run that requires the browser has none. */
export function assertBrowser(): void {
  if (!HAS_BROWSER) throw new Error(`REQUIRE_BROWSER=1 but there is no chromium at ${CHROMIUM}: apt-get install chromium`);
}
