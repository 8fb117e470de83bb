/**
 * The MCP server (Model Context Protocol, tools only), a presenter like REST and GraphQL: each tool
 * call runs the service of the REST call it stands for (api/mcp/tools.ts), after the same rate
 * limits (core/rate-limits.ts), with the same Idempotency-Key rules (`idempotency_key`), and is
 * metered under that REST endpoint's name. Refusals are MCP tool errors (`isError: true`) whose
 * text is `{"status_code", "status_message"}` of the service's DomainError or of the task; an
 * unexpected failure is 50000 "Internal error." (logged), never a stack. Transports: Streamable
 * HTTP at /mcp (api/mcp/http.ts) and stdio (api/mcp/stdio.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuthAccount } from '../../core/authentication.js';
import { databaseFaultError } from '../../core/db/faults.js';
import { isErrorCode, STATUS, statusMessage, type StatusCode } from '../../core/domain/status-codes.js';
import type { BatchOutcome, TaskOutcome } from '../../core/domain/outcomes.js';
import { DomainError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { AccountRateLimits } from '../../core/rate-limits.js';
import { recordUsage } from '../../core/usage.js';
import { API_VERSION } from '../../core/version.js';
import { runIdempotently } from './idempotency.js';
import { IDEMPOTENCY_ARGUMENT, ratesOf, TOOLS, toolNamed, type ToolDeps } from './tools.js';
import { TASK_OUTPUT_SCHEMA } from './schemas.js';

export interface McpDeps extends ToolDeps {
  logger: Logger;
  rateLimits: AccountRateLimits;
}

/** A tool error carrying a spec code and message (and Retry-After seconds for 40202). */
export function toolError(code: StatusCode, message: string, retryAfterSeconds?: number): CallToolResult {
  const error = { status_code: code, status_message: message, ...(retryAfterSeconds !== undefined && { retry_after_seconds: retryAfterSeconds }) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
}

/** The tool result of a one-task outcome: its task, or a tool error with the task's (or request's) code. */
function toolResult(outcome: BatchOutcome): CallToolResult {
  const task: TaskOutcome | undefined = outcome.tasks[0];
  if (isErrorCode(outcome.code) || !task) return toolError(outcome.code, outcome.message);
  if (isErrorCode(task.code)) return toolError(task.code, task.message);
  const structured = { id: task.id, status_code: task.code, status_message: task.message, cost: task.cost, result_count: task.result?.length ?? 0, result: task.result ?? [] };
  return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
}

/**
 * A server answering for the account `account()` resolves (called once per request: a revoked key
 * stops working at once). One server serves one transport.
 * @throws nothing to the transport for a refused call: refusals are tool errors; an unknown tool is
 *   the protocol's InvalidParams error
 */
export function createMcpServer(deps: McpDeps, account: () => Promise<AuthAccount>): Server {
  const server = new Server({ name: 'retail-data-api', version: API_VERSION }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const rates = ratesOf(await account());
    return {
      tools: TOOLS.map((tool) => ({
        name: tool.name,
        description: tool.description(rates),
        inputSchema: tool.inputSchema,
        outputSchema: TASK_OUTPUT_SCHEMA,
      })),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = toolNamed(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    let caller: AuthAccount | undefined;
    let outcome: BatchOutcome | undefined;
    let replayed = false;
    try {
      caller = await account();
      const args = { ...request.params.arguments };
      const key = args[IDEMPOTENCY_ARGUMENT];
      delete args[IDEMPOTENCY_ARGUMENT];
      await deps.rateLimits.consume(caller.id, caller.limits, tool.tasks);
      const who = caller;
      if (tool.idempotent && key !== undefined) {
        ({ outcome, replayed } = await runIdempotently(deps, who, { endpoint: tool.endpoint, key, tasks: tool.tasks, body: [args] }, () => tool.run(deps, who, args)));
      } else {
        outcome = await tool.run(deps, who, args);
      }
      return toolResult(outcome);
    } catch (error) {
      const domain = error instanceof DomainError ? error : databaseFaultError(error);
      if (domain) return toolError(domain.code, domain.message, domain.retryAfterSeconds);
      deps.logger.error({ err: error, tool: tool.name }, 'mcp tool failed');
      return toolError(STATUS.INTERNAL_ERROR, statusMessage(STATUS.INTERNAL_ERROR));
    } finally {
      // Metered as the REST call: one request, its tasks and cost once authenticated; a refusal or a
      // replay counts as a request without tasks.
      const counted = replayed ? undefined : outcome;
      if (caller) void recordUsage(deps.db, { accountId: caller.id, endpoint: tool.endpoint, tasks: counted?.tasks.length ?? 0, cost: counted?.cost ?? 0 }, deps.logger);
    }
  });

  return server;
}
