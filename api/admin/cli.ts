/**
 * `npm run admin -- <command>`: operator commands (operations-contract.md). Each prints one JSON
 * value on stdout, or a message on stderr and exits non-zero.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, publicBaseUrl, type Config } from '../../core/config.js';
import { openDatabase, type Database } from '../../core/db/database.js';
import { createMailer } from '../../core/mailer.js';
import { temporalAddressOf } from '../../core/temporal/address.js';
import { connectMonitorLauncher, type MonitorLauncher } from '../services/monitor-launcher.js';
import { approveAccessRequest, listAccessRequests } from './access-requests.js';
import { AdminError, createAccount, setDisabled, setLimits, topUp } from './accounts.js';

function usdAmount(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('not a number of USD');
  return n;
}

/** A positive integer (a per-minute limit or an id); for limits, `default` returns to the plan's value. */
function positiveInt(allowDefault: boolean) {
  return (value: string): number | 'default' => {
    if (allowDefault && value === 'default') return value;
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647) throw new InvalidArgumentError('not a positive integer');
    return n;
  };
}

async function withDatabase<T>(fn: (db: Database, config: Config) => Promise<T>): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config, { migrate: true });
  try {
    console.log(JSON.stringify(await fn(db, config)));
  } finally {
    await db.close();
  }
}

/**
 * The running service's monitors, for `topup` and `enable` to signal resumed subscriptions: connected on first
 * use to TEMPORAL_ADDRESS or the embedded dev server recorded in DATA_DIR. When Temporal does not
 * answer, a note goes to stderr: each monitor then notices the resume within one interval.
 */
function serviceMonitors(config: Config): { monitors: Pick<MonitorLauncher, 'resume'>; close(): Promise<void> } {
  let connected: Awaited<ReturnType<typeof connectMonitorLauncher>> = null;
  return {
    monitors: {
      async resume(ids) {
        const address = temporalAddressOf(config);
        connected = address ? await connectMonitorLauncher(config, address, { onError: (error, id) => console.error(`could not signal monitor:${id}: ${String(error)}`) }) : null;
        if (!connected) {
          console.error(`note: Temporal is not reachable; the ${ids.length} resumed subscriptions restart reading within one monitoring interval`);
          return;
        }
        await connected.launcher.resume(ids);
      },
    },
    close: async () => { await connected?.close(); },
  };
}

const program = new Command('admin').description('retail-data-api operator commands').exitOverride();
const account = program.command('account').description('accounts');

account
  .command('create')
  .requiredOption('--login <login>')
  .requiredOption('--email <email>')
  .option('--balance <usd>', 'opening balance in USD', usdAmount)
  .option('--plan <plan>', 'price plan', 'standard')
  .action((o: { login: string; email: string; balance?: number; plan: string }) =>
    withDatabase((db) => createAccount(db, o)));

account
  .command('topup')
  .requiredOption('--login <login>')
  .requiredOption('--amount <usd>', 'USD to add', usdAmount)
  .action((o: { login: string; amount: number }) => withDatabase(async (db, config) => {
    const service = serviceMonitors(config);
    try {
      return await topUp(db, o, { monitors: service.monitors });
    } finally {
      await service.close();
    }
  }));

for (const [name, disabled] of [['disable', true], ['enable', false]] as const) {
  account
    .command(name)
    .description(`${name} an account (a disabled account's requests fail with 40102)`)
    .requiredOption('--login <login>')
    .action((o: { login: string }) => withDatabase(async (db, config) => {
      const service = serviceMonitors(config);
      try {
        return await setDisabled(db, { login: o.login, disabled }, { monitors: service.monitors });
      } finally {
        await service.close();
      }
    }));
}

account
  .command('set-limits')
  .description('per-minute rate limits; prints the effective values ("default" returns to the plan\'s)')
  .requiredOption('--login <login>')
  .option('--requests-per-minute <n>', 'requests per minute', positiveInt(true))
  .option('--tasks-per-minute <n>', 'tasks per minute', positiveInt(true))
  .action((o: { login: string; requestsPerMinute?: number | 'default'; tasksPerMinute?: number | 'default' }) => {
    // commander turns a parser's null into '', so `default` travels as text and becomes null here.
    const limit = (v?: number | 'default') => (v === 'default' ? null : v);
    return withDatabase((db) => setLimits(db, { login: o.login, requestsPerMinute: limit(o.requestsPerMinute), tasksPerMinute: limit(o.tasksPerMinute) }));
  });

const accessRequests = program.command('access-requests').description('public access requests');

accessRequests
  .command('list')
  .description('every stored access request, oldest first, spam included')
  .option('--status <status>', 'only pending, approved or spam requests')
  .action((o: { status?: string }) => withDatabase((db) => listAccessRequests(db, o.status)));

accessRequests
  .command('approve')
  .description('create the account and its one-time credentials link (e-mailed when SMTP_URL is set)')
  .argument('<id>', 'access request id', positiveInt(false))
  .action((id: number) =>
    withDatabase((db, config) =>
      approveAccessRequest(db, { id, baseUrl: publicBaseUrl(config), mailer: createMailer(config), warn: (m) => console.error(m) })));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (!code?.startsWith('commander.')) console.error(error instanceof AdminError ? error.message : String((error as Error).stack ?? error));
  process.exit(1);
}
