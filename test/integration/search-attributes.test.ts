/**
 * The custom search attributes wherever the project starts or expects Temporal (docs/operations.md
 * "Operators' view in the Temporal UI"), on real CLI dev servers: a worker refuses a namespace that
 * lacks them, naming them and the command that creates them — which, run as printed, lets it
 * start; the embedded dev server registers them on a database an older version created (the CLI's
 * `--search-attribute` flags only apply to a new one) and refuses one that has them with another type.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { SEARCH_ATTRIBUTES } from '../../core/domain/operator-view.js';
import { createLogger } from '../../core/logger.js';
import { findTemporalCli } from '../../core/temporal/cli.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/temporal/dev-server.js';
import { searchAttributeProblems } from '../../core/temporal/search-attributes.js';
import { startWorker } from '../../worker/main.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const NAMES = Object.keys(SEARCH_ATTRIBUTES);

describe('custom search attributes on the Temporal server', () => {
  let app: TestApp;
  let workDir: string;
  const servers: TemporalDevServer[] = [];
  const server = async (options: Parameters<typeof startTemporalDevServer>[0]) => {
    const started = await startTemporalDevServer({ uiPort: false, ...options });
    servers.push(started);
    return started;
  };
  const problemsOf = async (address: string) => {
    const connection = await Connection.connect({ address });
    try {
      return await searchAttributeProblems(connection, 'default');
    } finally {
      await connection.close();
    }
  };

  beforeAll(async () => {
    app = await startTestApp({ listen: false });
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-search-attributes-'));
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await app?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('a worker refuses a namespace without them, naming each and the command that creates them; run as printed, the worker starts', async () => {
    const bare = await server({ searchAttributes: false });
    const config = loadConfig({ DATA_DIR: app.dataDir, TEMPORAL_ADDRESS: bare.address, LOG_LEVEL: 'silent', BROWSER_MAX_PAGES: '1' });
    const start = () => startWorker({ config, db: app.db, temporalAddress: bare.address, logger: createLogger('silent') });
    const refusal = await start().then(() => null, (error: Error) => error);
    expect(refusal?.message).toContain(`Temporal at ${bare.address} (namespace default) lacks the search attributes`);
    expect(refusal?.message).toContain('Missing: AccountId (Int), Asin (Keyword), Keyword (Keyword), Marketplace (Keyword), Tag (Keyword), SubscriptionId (Int), ResultCode (Int), WebhookKind (Keyword), Summary (Keyword).');
    const command = refusal!.message.split('\n').find((line) => line.startsWith('  temporal operator'))!.trim();
    expect(command).toBe(NAMES.map((name) =>
      `temporal operator search-attribute create --address ${bare.address} --namespace default --name ${name} --type ${SEARCH_ATTRIBUTES[name as keyof typeof SEARCH_ATTRIBUTES].type === 'INT' ? 'Int' : 'Keyword'}`).join(' && '));

    // The operator runs the command as printed (with the CLI on PATH); then the worker starts.
    const cli = findTemporalCli();
    await run('sh', ['-c', command], { env: { ...process.env, PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH}` } });
    expect(await problemsOf(bare.address)).toEqual([]);
    const worker = await start();
    await worker.stop();
  });

  it('the embedded dev server registers them on a database an older version created', async () => {
    const dbFile = path.join(workDir, 'older.db');
    const older = await server({ dbFile, searchAttributes: false });
    expect((await problemsOf(older.address)).map((p) => p.name)).toEqual(NAMES);
    await older.stop();
    const now = await server({ dbFile });
    expect(await problemsOf(now.address)).toEqual([]);
  });

  it('a database holding one with another type stops the dev server with the attribute named', async () => {
    const dbFile = path.join(workDir, 'clash.db');
    const older = await server({ dbFile, searchAttributes: false });
    await run(findTemporalCli(), ['operator', 'search-attribute', 'create', '--address', older.address, '--name', 'Tag', '--type', 'Text']);
    await older.stop();
    await expect(server({ dbFile })).rejects.toThrow('search attributes registered with another type: Tag is TEXT, expected KEYWORD');
  });
});
