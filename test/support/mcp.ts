/**
 * MCP clients of the service for tests, with the official SDK's client (`@modelcontextprotocol/sdk`):
 * over Streamable HTTP at `<api>/mcp` with a Bearer key, or over stdio by spawning `api/mcp/stdio.ts`
 * (what `npm run mcp` runs) against a stack's database and Temporal. `toolCall` reads a result as
 * the task or the `{ status_code, status_message }` of a tool error.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from './env.js';

/** A connected client over Streamable HTTP, authenticated by `key` as Bearer. */
export async function httpMcpClient(apiUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'retail-data-api-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

/** A connected client of a spawned stdio server (`api/mcp/stdio.ts`) as the account of `key`. */
export async function stdioMcpClient(env: { DATABASE_URL: string; TEMPORAL_ADDRESS: string; RDA_API_KEY: string } & Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'retail-data-api-tests', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(repoRoot, 'api/mcp/stdio.ts')],
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env },
    stderr: 'inherit',
  }));
  return client;
}

/** A tool call's answer: `ok` with the task (structuredContent), or the tool error's code and message. */
export type ToolAnswer =
  | { ok: true; task: { id: string; status_code: number; status_message: string; cost: number; result_count: number; result: any[] } }
  | { ok: false; error: { status_code: number; status_message: string; retry_after_seconds?: number } };

/** Calls `name` with `args` and reads the answer (see ToolAnswer). */
export async function toolCall(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    const [content] = result.content as { type: string; text: string }[];
    return { ok: false, error: JSON.parse(content!.text) };
  }
  return { ok: true, task: result.structuredContent as any };
}
