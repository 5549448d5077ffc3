import { startTestApp, TestApp, DEMO } from '../support/harness';
import { appCli, CliRun } from '../support/cli';
import { parseCommand } from '../../scripts/costs';
import { UsageError } from '../../scripts/cli';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine,
// so a test of ten commands needs more than jest's default here. The limit is for a command that hangs.
jest.setTimeout(180_000);

/**
 * `npm run costs -- …` (docs/metrics.md#ai-review-and-cost-figures) as an operator runs it, in a child process on the test app's database: the
 * financial metrics' inputs, one currency per organization. Refusals exit 1 with the service's message, usage
 * errors 2 with the usage.
 */

let t: TestApp;
let costs: (...args: string[]) => Promise<CliRun>;
beforeAll(async () => {
  t = await startTestApp();
  costs = appCli(t, 'costs');
});
afterAll(async () => t.close());

const ACME = DEMO.orgs.acme;

async function json(...args: string[]): Promise<unknown> {
  const run = await costs(...args, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

test('set each subject, list as a table and as JSON, unset each', async () => {
  expect(await json('set', '--org', ACME, '--annual-cost', '85000', '--currency', 'EUR')).toMatchObject({ subject: 'organization', amount: 85000, per: 'year', currency: 'EUR' });
  const ada = await costs('set', '--org', ACME, '--annual-cost', '120000.50', '--user', 'ADA@demo.test');
  expect(ada.code).toBe(0);
  expect(ada.stdout).toContain(`Set the annual cost of ada@demo.test: 120000.5 EUR a year (organization ${ACME})\n`);
  expect(ada.stdout).toContain(`set what 1 USD is in EUR with "npm run costs -- set --org ${ACME} --usd-rate R"`);
  expect(await json('set', '--org', ACME, '--tool', 'claude_code', '--seat-monthly', '25')).toMatchObject({ subject: 'tool', subject_id: 'claude_code', amount: 25, per: 'month', currency: 'EUR' });
  const usd = await costs('set', '--org', ACME, '--usd-rate', '0.92');
  expect(usd.stdout).toContain(`Set the USD rate: 1 USD = 0.92 EUR (organization ${ACME})\n`);
  expect(usd.stdout).not.toContain('--usd-rate R');

  const table = await costs('list', '--org', ACME);
  expect(table.code).toBe(0);
  expect(table.stdout.split('\n').slice(1).join('\n')).toBe(
    [
      'SUBJECT       WHO            AMOUNT    PER    CURRENCY',
      'organization  every member   85000     year   EUR',
      'user          ada@demo.test  120000.5  year   EUR',
      'tool          claude_code    25        month  EUR',
      'usd_rate      -              0.92      USD    EUR',
      '',
    ].join('\n'),
  );
  const listed = await json('list', '--org', ACME);
  expect(listed).toEqual([
    expect.objectContaining({ subject: 'organization', subject_id: '', user_email: null, amount: 85000, per: 'year', currency: 'EUR' }),
    expect.objectContaining({ subject: 'user', subject_id: DEMO.users.ada, user_email: DEMO.emails.ada, amount: 120000.5, per: 'year', currency: 'EUR' }),
    expect.objectContaining({ subject: 'tool', subject_id: 'claude_code', user_email: null, amount: 25, per: 'month', currency: 'EUR' }),
    expect.objectContaining({ subject: 'usd_rate', subject_id: '', user_email: null, amount: 0.92, per: 'USD', currency: 'EUR' }),
  ]);
  expect(Object.keys((listed as object[])[0])).toEqual(['subject', 'subject_id', 'user_email', 'amount', 'per', 'currency', 'created_at', 'updated_at']);

  // The organization's currency stands while any rate is in it.
  const other = await costs('set', '--org', ACME, '--tool', 'codex', '--seat-monthly', '20', '--currency', 'USD');
  expect(other.code).toBe(1);
  expect(other.stderr).toBe(
    `costs: Organization ${ACME}'s rates are in EUR, and an organization has one currency. To change it to USD, unset its other rates first, then set them again in USD\n`,
  );

  expect((await costs('unset', '--org', ACME, '--user', DEMO.users.ada)).stdout).toContain('Unset the annual cost of ada@demo.test: 120000.5 EUR a year');
  expect(await json('unset', '--org', ACME, '--tool', 'claude_code')).toMatchObject({ subject: 'tool', subject_id: 'claude_code' });
  expect((await costs('unset', '--org', ACME, '--usd-rate')).code).toBe(0);
  expect((await costs('unset', '--org', ACME, '--default')).code).toBe(0);
  expect(await json('list', '--org', ACME)).toEqual([]);
  expect((await costs('list', '--org', ACME)).stdout).toContain(`No cost rates for organization ${ACME}; its currency is USD until one is set.\n`);
  expect((await costs('unset', '--org', ACME, '--default')).stderr).toBe(`costs: Organization ${ACME} has no default annual cost to unset\n`);
});

test('every AI tool whose use is counted is priced by the seat: those telemetry reports and those read from their vendor', async () => {
  const GLOBEX = DEMO.orgs.globex;
  for (const [tool, price] of [['copilot', '19'], ['cursor', '40'], ['claude_code', '25'], ['gemini_cli', '0'], ['codex', '20']]) {
    expect(await json('set', '--org', GLOBEX, '--tool', tool, '--seat-monthly', price)).toMatchObject({ subject: 'tool', subject_id: tool, amount: Number(price), per: 'month', currency: 'USD' });
  }
  const said = await costs('set', '--org', GLOBEX, '--tool', 'copilot', '--seat-monthly', '21');
  expect(said.stdout).toContain(`Set the seat price of copilot: 21 USD a month per active user (organization ${GLOBEX})\n`);
  const listed = (await json('list', '--org', GLOBEX)) as { subject_id: string; amount: number }[];
  expect(listed.map((r) => [r.subject_id, r.amount])).toEqual([['claude_code', 25], ['codex', 20], ['copilot', 21], ['cursor', 40], ['gemini_cli', 0]]);
});

test('refusals exit 1 saying what to fix: bad amounts, a non-member, an unknown tool or organization', async () => {
  const refusals: [string[], string][] = [
    [['--annual-cost', '1.23456'], 'costs: An amount has at most 4 decimals (got 1.23456)\n'],
    [['--annual-cost=-5'], 'costs: An amount must be a finite number, 0 or more (got -5)\n'],
    [['--annual-cost', '1', '--user', DEMO.emails.outsider], `costs: ${DEMO.emails.outsider} is not a member of organization ${ACME}; a cost is set for members only\n`],
    [['--tool', 'windsurf', '--seat-monthly', '20'], "costs: Unknown AI tool 'windsurf'; the tools are claude_code, gemini_cli, codex, copilot, cursor\n"],
    [['--annual-cost', '1', '--currency', 'EURO'], "costs: 'EURO' is not an ISO 4217 currency code: three letters such as USD, EUR, GBP or JPY\n"],
  ];
  for (const [args, stderr] of refusals) expect(await costs('set', '--org', ACME, ...args)).toMatchObject({ code: 1, stderr });
  expect(await costs('list', '--org', 'org_nope')).toMatchObject({ code: 1, stderr: 'costs: No organization org_nope\n' });
  expect(await json('list', '--org', ACME)).toEqual([]);
});

test('usage errors exit 2 with the usage; --help exits 0', async () => {
  const missing = await costs('set', '--annual-cost', '1');
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^costs: set needs --org <organization id>\n\nUsage:\n {2}npm run costs -- set/);
  const help = await costs('--help');
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('what 1 US dollar is in the organization');
  expect(help.stdout).toContain('(tools: claude_code, gemini_cli, codex, copilot, cursor); 0 for a free one.');
  expect((await costs('unset', '--org', ACME, '--default', '--usd-rate')).code).toBe(2);
});

test('the command line, parsed', () => {
  const usage = (...argv: string[]) => {
    try {
      parseCommand(argv);
    } catch (e) {
      if (e instanceof UsageError) return e.message;
      throw e;
    }
    throw new Error(`no usage error for ${argv.join(' ')}`);
  };
  expect(parseCommand(['set', '--org', 'o', '--annual-cost', '10', '--user', 'u@x.test'])).toEqual({
    kind: 'set',
    org: 'o',
    target: { subject: 'user', user: 'u@x.test' },
    amount: 10,
    json: false,
  });
  expect(parseCommand(['set', '--org', 'o', '--usd-rate', '.5', '--currency', 'EUR', '--json'])).toEqual({ kind: 'set', org: 'o', target: { subject: 'usd_rate' }, amount: 0.5, currency: 'EUR', json: true });
  expect(parseCommand(['unset', '--org', 'o', '--tool', 'codex'])).toEqual({ kind: 'unset', org: 'o', target: { subject: 'tool', tool: 'codex' }, json: false });
  expect(usage('set', '--org', 'o')).toBe('set needs one of --annual-cost N, --tool T --seat-monthly N or --usd-rate R');
  expect(usage('set', '--org', 'o', '--annual-cost', '1', '--usd-rate', '2')).toBe('set needs one of --annual-cost N, --tool T --seat-monthly N or --usd-rate R');
  expect(usage('set', '--org', 'o', '--seat-monthly', '1')).toBe('--tool and --seat-monthly go together: --tool claude_code --seat-monthly 25');
  expect(usage('set', '--org', 'o', '--tool', 'codex', '--annual-cost', '1')).toBe('--tool and --seat-monthly go together: --tool claude_code --seat-monthly 25');
  expect(usage('set', '--org', 'o', '--usd-rate', '1', '--user', 'u')).toBe('--user goes with --annual-cost (a member’s annual cost)');
  expect(usage('set', '--org', 'o', '--annual-cost', '1,000')).toBe("--annual-cost needs a number such as 85000 or 19.50 (got '1,000')");
  expect(usage('set', '--org', 'o', '--annual-cost', 'Infinity')).toBe("--annual-cost needs a number such as 85000 or 19.50 (got 'Infinity')");
  expect(usage('unset', '--org', 'o')).toBe('unset needs exactly one of --user <id|email>, --tool <tool>, --default or --usd-rate');
  expect(usage('list')).toBe('list needs --org <organization id>');
  expect(usage('frobnicate')).toBe('unknown command "frobnicate"; use set, list or unset');
});
