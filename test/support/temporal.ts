/**
 * A Temporal dev server and a client of it for one test file: started in `beforeAll`, closed in
 * `afterAll`. Read `temporal.server` / `temporal.client` inside tests (set once `beforeAll` ran).
 */
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { startTemporalDevServer, type TemporalDevServer } from '../../core/temporal/dev-server.js';

/** The file's dev server and client. */
export interface FileTemporal {
  server: TemporalDevServer;
  client: Client;
}

/** Registers the hooks that start and stop a dev server (no UI) and its client for the calling file. */
export function useTemporalDevServer(): FileTemporal {
  const handle = {} as FileTemporal;
  let connection: Connection | undefined;
  beforeAll(async () => {
    handle.server = await startTemporalDevServer({ uiPort: false });
    connection = await Connection.connect({ address: handle.server.address });
    handle.client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await handle.server?.stop();
  });
  return handle;
}
