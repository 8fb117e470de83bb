/**
 * /openapi.json entry of /mcp: the Model Context Protocol over Streamable HTTP (api/mcp/http.ts),
 * stateless, JSON answers. Its tools, their input and output schemas and prices are listed by the
 * protocol itself (`tools/list`), not here; see docs/clients.md.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { jsonOk, operation } from '../operations.js';

const jsonRpc = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' });

/** POST /mcp. */
export const mcpPaths: ZodOpenApiPathsObject = {
  '/mcp': {
    post: operation({
      operationId: 'mcpPost',
      tags: ['mcp'],
      summary: 'A Model Context Protocol message (Streamable HTTP, stateless)',
      description: 'Send `Accept: application/json, text/event-stream`. Tools: get_product, product_history, product_stats, monitor_product, list_monitors, account, each charged as the REST call it stands for; a refused call is a tool error (`isError`) whose text is `{"status_code", "status_message"}`.',
      auth: 'required',
      body: jsonRpc,
      ok: jsonOk('The JSON-RPC response.', jsonRpc),
    }),
  },
};
