import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { builtFile } from '../support/cli';

/**
 * What a server process holds from its start: the modules `src/service.ts` reaches by static imports, as the service
 * runs them (dist/, built by jest's global setup), in a process of its own. The browser bundle of the API reference
 * and the providers' clients would each stay in memory for good (4 MB of swagger-ui's source and code, Octokit,
 * gitbeaker, Slack's client), in a process that serves its figures under a 200 MB budget and may never read a history.
 */
test('a server process loads no browser bundle and no provider client until a history is read', async () => {
  const script = `require(${JSON.stringify(builtFile('src/service.ts'))});
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { maxBuffer: 10_000_000 });
  const loaded: string[] = JSON.parse(stdout);
  // The graph really was loaded: the docs page's path helper and the service's own integrations are in it.
  expect(loaded.some((f) => f.endsWith('swagger-ui-dist/absolute-path.js'))).toBe(true);
  expect(loaded.some((f) => /dist\/src\/integrations\/gitlab\/history\.js$/.test(f))).toBe(true);
  // GitHub's signature check (@octokit/webhooks-methods, a few kB) verifies every delivery, so it stays.
  const heavy = loaded.filter((f) => /swagger-ui-(bundle|standalone-preset)\.js$|node_modules\/(@octokit\/(?!webhooks-methods)|@gitbeaker\/|@slack\/web-api\/)/.test(f));
  expect(heavy).toEqual([]);
});
