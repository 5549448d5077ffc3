import { startTestApp, TestApp, DEMO } from './harness';

/**
 * What the official clients' own tests run against (test/clients/pythonClient.test.ts, test/clients/goClient.test.ts): the service
 * with the demo data, and a second one limited to 3 requests a minute for the 429 tests. Call in the file's body:
 * it registers the start and the stop.
 */
export function clientServices(): { main: () => TestApp; environment: () => Promise<Record<string, string>> } {
  let main: TestApp;
  let limited: TestApp;
  beforeAll(async () => {
    main = await startTestApp();
    limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await main?.close();
    await limited?.close();
  });
  return {
    main: () => main,
    /** The variables the clients' tests read: where, ada's token (an admin), linus's (a collaborator), the limited one. */
    environment: async () => ({
      PLATFORM_API_URL: await main.listen(),
      PLATFORM_API_TOKEN: await main.token(),
      PLATFORM_API_COLLABORATOR_TOKEN: await main.token({ user: DEMO.emails.linus }),
      PLATFORM_API_LIMITED_URL: await limited.listen(),
    }),
  };
}
