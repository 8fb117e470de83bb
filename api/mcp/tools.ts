/**
 * The MCP tools: one per REST call an agent needs, each running the very service the REST route
 * runs (no HTTP round trip), so it is validated, charged and refused exactly as that call.
 * Descriptions carry the account's price from the plan's rate table (core/pricing.ts).
 *
 * | tool | REST call it stands for | price |
 * |---|---|---|
 * | get_product | POST /v1/retail/product/live | `live` per call (a stored observation younger than `max_age_minutes` answers at once) |
 * | product_history | POST /v1/retail/product/history | `history` per call |
 * | product_stats | POST /v1/retail/product/stats | `history` per call |
 * | monitor_product | POST /v1/retail/monitoring/add | free; `monitoring` per delivered observation |
 * | list_monitors | GET /v1/retail/monitoring/list | free |
 * | account | GET /v1/appendix/user_data | free |
 * | search_keyword | POST /v1/retail/search/live | `search_live` per call (a stored read of the last 60 minutes answers at once) |
 * | keyword_rank_history | POST /v1/retail/search/rank_history | `history` per call |
 */
import type { AuthAccount } from '../../core/authentication.js';
import type { BatchOutcome } from '../../core/domain/outcomes.js';
import { planOf, type Rates } from '../../core/pricing.js';
import { statsTask } from '../../core/validation/analytics.js';
import { historyTask, liveTask, monitoringAddTask, monitoringListQuery } from '../../core/validation/requests.js';
import { rankHistoryTask, searchLiveTask } from '../../core/validation/search-fields.js';
import { history } from '../services/history.js';
import { live } from '../services/live.js';
import { addMonitoring, listMonitoring, type MonitoringDeps } from '../services/monitoring.js';
import type { ProductTaskDeps } from '../services/product-tasks.js';
import { searchLive, searchRankHistory } from '../services/search-tasks.js';
import { stats } from '../services/stats.js';
import { userData } from '../services/user-data.js';
import { toolInputSchema, type JsonSchema } from './schemas.js';

/** What the tools run on: the services' dependencies (the monitor launcher for monitor_product). */
export type ToolDeps = ProductTaskDeps & Partial<Pick<MonitoringDeps, 'monitors'>>;

/** The argument naming an idempotency key (the `Idempotency-Key` header of the REST call). */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

/** One tool: its name, the REST endpoint it is metered and rate limited as, and how it runs. */
export interface Tool {
  name: string;
  /** The usage endpoint name of the REST call (api/rest/middleware/metering.ts `endpointName`). */
  endpoint: string;
  /** The description shown to the agent, with the account's price (USD). */
  description(rates: Rates): string;
  inputSchema: JsonSchema;
  /** Task objects the call counts against the tasks-per-minute limit (the REST body's length). */
  tasks: number;
  /** True when the call takes `idempotency_key` as its REST call takes `Idempotency-Key`. */
  idempotent: boolean;
  /** Runs the service with the tool's arguments (without `idempotency_key`). */
  run(deps: ToolDeps, account: AuthAccount, args: Record<string, unknown>): Promise<BatchOutcome>;
}

const usd = (amount: number) => `$${amount} USD`;

const idempotencyKey = {
  [IDEMPOTENCY_ARGUMENT]: {
    type: 'string',
    pattern: '^[\\x21-\\x7e]{1,255}$',
    description: 'Optional: a call repeated with the same key and arguments within 24 hours answers the first answer again and is charged nothing (the REST Idempotency-Key).',
  },
};

/** monitoring/list takes text integers (a query string); an agent may send numbers. */
function listQuery(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
}

function withMonitors(deps: ToolDeps): MonitoringDeps {
  if (!deps.monitors) throw new Error('monitor_product needs a MonitorLauncher');
  return { ...deps, monitors: deps.monitors };
}

/** Every tool, in the order tools/list answers. */
export const TOOLS: readonly Tool[] = [
  {
    name: 'get_product',
    endpoint: 'live',
    description: (r) => `One product (ASIN + marketplace) as a Product object: a stored observation at most \`max_age_minutes\` old (default 60) is returned at once, otherwise the page is read live (up to 60 s). Price: ${usd(r.live)} per call (POST live); a product not found (40402) or a read that failed (50301) is refunded.`,
    inputSchema: toolInputSchema(liveTask, idempotencyKey),
    tasks: 1,
    idempotent: true,
    run: (deps, account, args) => live(deps, account, [args]),
  },
  {
    name: 'product_history',
    endpoint: 'history',
    description: (r) => `Stored observations of one product, newest first (\`limit\`, \`offset\`, \`date_from\` / \`date_to\` as UTC days). Price: ${usd(r.history)} per call (POST history).`,
    inputSchema: toolInputSchema(historyTask),
    tasks: 1,
    idempotent: false,
    run: (deps, account, args) => history(deps, account, [args]),
  },
  {
    name: 'product_stats',
    endpoint: 'stats',
    description: (r) => `Statistics (price, BSR, rating, offers: min / max / mean / last) and the time series of one product over a window (\`days\`, or \`from\` / \`to\`; \`bucket\` hour or day). Price: ${usd(r.history)} per call (POST stats).`,
    inputSchema: toolInputSchema(statsTask),
    tasks: 1,
    idempotent: false,
    run: (deps, account, args) => stats(deps, account, [args]),
  },
  {
    name: 'monitor_product',
    endpoint: 'add',
    description: (r) => `Subscribes to a product: it is observed \`hourly\`, \`every_6h\` or \`daily\`, optionally with change alerts. Adding is free; each delivered observation costs ${usd(r.monitoring)} (monitoring/add).`,
    inputSchema: toolInputSchema(monitoringAddTask),
    tasks: 1,
    idempotent: false,
    run: (deps, account, args) => addMonitoring(withMonitors(deps), account, [args]),
  },
  {
    name: 'list_monitors',
    endpoint: 'list',
    description: () => 'The account\'s subscriptions with their latest observation, oldest first (`limit`, `offset`, `tag`). Free (monitoring/list).',
    inputSchema: toolInputSchema(monitoringListQuery, {
      limit: { type: ['integer', 'string'], description: 'Subscriptions per page, 1 to 1000 (default 100).' },
      offset: { type: ['integer', 'string'], description: 'Subscriptions skipped (default 0).' },
    }),
    tasks: 0,
    idempotent: false,
    run: (deps, account, args) => listMonitoring(deps, account, listQuery(args)),
  },
  {
    name: 'account',
    endpoint: 'user_data',
    description: () => 'The account: balance (USD), plan, rates (USD per unit), limits, usage today and this month. Free (user_data).',
    inputSchema: { type: 'object', properties: {} },
    tasks: 0,
    idempotent: false,
    run: (deps, account) => userData(deps.db, account),
  },
  {
    name: 'search_keyword',
    endpoint: 'live',
    description: (r) => `The first results page of a keyword search on a marketplace as a SearchResults object: every result card in page order with its position, organic position (null for sponsored cards), sponsored flag, ASIN, title, price, rating and badges; \`status\` no_results when the marketplace has none. A read of the last 60 minutes answers at once, otherwise the page is read live (up to 60 s). Price: ${usd(r.search_live)} per call (POST search/live); a read that failed (50301) is refunded.`,
    inputSchema: toolInputSchema(searchLiveTask, idempotencyKey),
    tasks: 1,
    idempotent: true,
    run: (deps, account, args) => searchLive(deps, account, [args]),
  },
  {
    name: 'keyword_rank_history',
    endpoint: 'rank_history',
    description: (r) => `Where one ASIN stood for a keyword in each stored search read of the last \`days\` days (1-365, default 30), newest first: page, position, organic position and sponsored flag, or null positions for reads where it was absent. Price: ${usd(r.history)} per call (POST search/rank_history).`,
    inputSchema: toolInputSchema(rankHistoryTask),
    tasks: 1,
    idempotent: false,
    run: (deps, account, args) => searchRankHistory(deps, account, [args]),
  },
];

/** The tool named `name`, if any. */
export function toolNamed(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The rates (USD) of the account's plan, for the descriptions. */
export function ratesOf(account: AuthAccount): Rates {
  return planOf(account.plan).rates;
}
