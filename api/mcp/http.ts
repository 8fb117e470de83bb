/**
 * MCP over Streamable HTTP at /mcp on the API port, stateless (no session: every POST carries
 * its JSON-RPC message and is answered with JSON). Authentication is the REST one: an API key as
 * Bearer (or Basic), checked on every request (missing or wrong: 401 envelope / 40100, before the
 * MCP layer sees anything). The body was read by the JSON body middleware (1 MiB limit, depth
 * limit); rate limits are counted per tool call (api/mcp/server.ts). GET and DELETE (server
 * streams and sessions) are not offered: 405.
 */
import { Router } from '@koa/router';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authenticate, type AuthAccount } from '../../core/authentication.js';
import { DomainError } from '../../core/errors.js';
import { createMcpServer, type McpDeps } from './server.js';

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';

/**
 * The /mcp routes. The router's state type is left open so api/app.ts mounts it beside the REST
 * routers without this presenter importing theirs.
 */
export function mcpRoutes(deps: McpDeps): Router {
  const router = new Router();
  router.post(MCP_PATH, async (ctx) => {
    const account = await authenticate(deps.db, ctx.get('authorization') || undefined);
    if (!account) throw new DomainError('AUTH_FAILED');
    ctx.state.account = account;
    const server = createMcpServer(deps, async (): Promise<AuthAccount> => account);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, (ctx.request as { json?: unknown }).json);
  });
  return router;
}
