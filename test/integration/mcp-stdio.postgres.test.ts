/**
 * MCP over stdio (`npm run mcp`: api/mcp/stdio.ts spawned with RDA_API_KEY), with the official
 * SDK's client, against a whole stack on the real PostgreSQL (a second process shares the
 * database, which embedded PGlite cannot isolate).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScratchDatabase } from '../support/env.js';
import { stdioMcpClient } from '../support/mcp.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { defineMcpToolTests } from './mcp-tools.js';

describeNeeding([await postgres()], 'MCP over stdio (npm run mcp)', () => {
  let running: TestStack;

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s' }, database: createScratchDatabase });
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
  });

  const connect = (key: string) => stdioMcpClient({
    DATABASE_URL: running.stack.db.url,
    TEMPORAL_ADDRESS: running.stack.temporalAddress,
    TEMPORAL_NAMESPACE: running.stack.config.TEMPORAL_NAMESPACE,
    TEMPORAL_TASK_QUEUE: running.stack.config.TEMPORAL_TASK_QUEUE,
    RDA_API_KEY: key,
  });

  it('refuses to start without a valid RDA_API_KEY', async () => {
    await expect(connect('not-a-key')).rejects.toThrow();
  });

  defineMcpToolTests(() => running.stack, connect, 'mcpstdio');
});
