/**
 * `npm run admin -- <command>`: operator commands (operations-contract.md). Each prints one JSON
 * value on stdout, or a message on stderr and exits non-zero.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../core/config.js';
import { openDatabase, type Database } from '../../core/db/database.js';
import { AdminError, createAccount, topUp } from './accounts.js';

function usdAmount(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('not a number of USD');
  return n;
}

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<void> {
  const db = await openDatabase(loadConfig(), { migrate: true });
  try {
    console.log(JSON.stringify(await fn(db)));
  } finally {
    await db.close();
  }
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
    withDatabase((db) => createAccount(db.prisma, o)));

account
  .command('topup')
  .requiredOption('--login <login>')
  .requiredOption('--amount <usd>', 'USD to add', usdAmount)
  .action((o: { login: string; amount: number }) => withDatabase((db) => topUp(db.prisma, o)));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (!code?.startsWith('commander.')) console.error(error instanceof AdminError ? error.message : String((error as Error).stack ?? error));
  process.exit(1);
}
