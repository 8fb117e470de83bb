/**
 * `npm run mcp`: the MCP server over stdio for desktop agents, as one account: the API key in
 * RDA_API_KEY (checked at start and again on every call, so a revoked key stops working at once).
 * It runs the services in this process against the service's database and Temporal
 * (DATABASE_URL, TEMPORAL_ADDRESS, as a standalone API process); standard output carries the
 * protocol, so logs go to standard error.
 */
import { Client, Connection } from '@temporalio/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { authenticate, type AuthAccount } from '../../core/authentication.js';
import { loadConfig } from '../../core/config.js';
import { openDatabase } from '../../core/db/database.js';
import { DomainError } from '../../core/errors.js';
import { createLogger } from '../../core/logger.js';
import { AccountRateLimits } from '../../core/rate-limits.js';
import { isMainModule } from '../../core/standalone.js';
import { flushUsage } from '../../core/usage.js';
import { temporalMonitorLauncher } from '../services/monitor-launcher.js';
import { temporalTaskLauncher } from '../services/task-launcher.js';
import { createMcpServer } from './server.js';

/**
 * Serves MCP on stdin / stdout until stdin closes or SIGINT / SIGTERM.
 * @throws DomainError 40100 (and exits 1) when RDA_API_KEY is unset or not a valid key
 */
export async function runMcpStdio(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'retail-data-api-mcp', process.stderr).child({ process: 'mcp' });
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS || !config.RDA_API_KEY) {
    logger.fatal('`npm run mcp` needs RDA_API_KEY, DATABASE_URL and TEMPORAL_ADDRESS');
    process.exit(1);
  }
  const header = `Bearer ${config.RDA_API_KEY}`;
  const db = await openDatabase(config);
  const account = async (): Promise<AuthAccount> => {
    const found = await authenticate(db, header);
    if (!found) throw new DomainError('AUTH_FAILED');
    return found;
  };
  try {
    await account();
  } catch (error) {
    // A refused key is the operator's mistake, said in one line; anything else is logged whole.
    if (error instanceof DomainError) logger.fatal({ code: error.code }, `RDA_API_KEY was refused: ${error.message}`);
    else logger.fatal({ err: error }, `could not check RDA_API_KEY: ${(error as Error).message}`);
    await db.close();
    process.exit(1);
  }
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const server = createMcpServer({
    config, db, logger,
    launcher: temporalTaskLauncher(client, config),
    monitors: temporalMonitorLauncher(client, config, { onError: (err, subscriptionId) => logger.warn({ err, subscriptionId }, 'could not signal the monitor') }),
    rateLimits: new AccountRateLimits(db),
  }, account);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await flushUsage(db).catch((err: unknown) => logger.error({ err }, 'could not write usage counters at shutdown'));
    await connection.close();
    await db.close();
    process.exit(0);
  };
  server.onclose = () => void stop();
  process.stdin.once('end', () => void stop());
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await server.connect(new StdioServerTransport());
}

if (isMainModule(import.meta.url)) await runMcpStdio();
