/**
 * MCP over Streamable HTTP at /mcp on the API port (api/mcp/http.ts), with the official SDK's
 * client, on the whole stack (PGlite, Temporal dev server, worker, Chromium, replay pages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMcpClient } from '../support/mcp.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { defineMcpToolTests } from './mcp-tools.js';

describe('MCP over Streamable HTTP (/mcp)', () => {
  let running: TestStack;

  beforeAll(async () => {
    running = await startTestStack({ env: { REUSE_WINDOW: '0s' } });
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
  });

  it('refuses an unauthenticated or wrongly authenticated /mcp request with 401 / 40100', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    for (const authorization of [undefined, 'Bearer not-a-key']) {
      const res = await fetch(`${running.stack.api.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status_code: 40100 });
    }
    await expect(httpMcpClient(running.stack.api.url, 'not-a-key')).rejects.toThrow();
  });

  defineMcpToolTests(() => running.stack, (key) => httpMcpClient(running.stack.api.url, key), 'mcphttp');
});
