/**
 * `me`: the caller's account, exactly what GET /v1/appendix/user_data returns (the same service):
 * login, e-mail, balance, plan, rate limits, price table, usage today and this month, active keys
 * and the webhook secret; plus `usageReport`, the GET /v1/appendix/usage service (every UTC day of
 * the range, per endpoint, totals; at most 366 days).
 */
import type { UsageTotals } from '../../../core/usage.js';
import type { Rates } from '../../../core/pricing.js';
import type { KeyListing } from '../../services/api-keys.js';
import { usage } from '../../services/usage.js';
import { userData } from '../../services/user-data.js';
import { builder, IN_MEMORY_LIST } from '../builder.js';
import { metered, requireAccount } from '../context.js';
import { ApiKeyRef } from './key.js';

/** The user_data result (api/services/user-data.ts), plus the account id. */
interface AccountShape {
  id: number;
  login: string;
  email: string;
  balance: number;
  plan: string;
  limits: { requests_per_minute: number; tasks_per_minute: number };
  rates: Rates;
  usage: { today: UsageTotals; this_month: UsageTotals };
  api_keys: KeyListing[];
  webhook_secret: string;
}

interface UsageReportShape {
  date_from: string;
  date_to: string;
  days: (UsageTotals & { date: string })[];
  endpoints: (UsageTotals & { endpoint: string })[];
  totals: UsageTotals;
}

const UsageTotalsRef = builder.objectRef<UsageTotals>('UsageTotals').implement({
  fields: (t) => ({
    requests: t.exposeInt('requests'),
    tasks: t.exposeInt('tasks'),
    cost: t.exposeFloat('cost', { description: 'USD.' }),
  }),
});

const UsageDayRef = builder.objectRef<UsageTotals & { date: string }>('UsageDay').implement({
  fields: (t) => ({
    date: t.exposeString('date', { description: 'UTC day, YYYY-MM-DD.' }),
    requests: t.exposeInt('requests'),
    tasks: t.exposeInt('tasks'),
    cost: t.exposeFloat('cost', { description: 'USD.' }),
  }),
});

const UsageEndpointRef = builder.objectRef<UsageTotals & { endpoint: string }>('UsageEndpoint').implement({
  fields: (t) => ({
    endpoint: t.exposeString('endpoint', { description: 'REST endpoint name (task_post, history, ...) or `graphql`.' }),
    requests: t.exposeInt('requests'),
    tasks: t.exposeInt('tasks'),
    cost: t.exposeFloat('cost', { description: 'USD.' }),
  }),
});

const UsageReportRef = builder.objectRef<UsageReportShape>('UsageReport').implement({
  description: 'Usage of a range of UTC days (GET /v1/appendix/usage).',
  fields: (t) => ({
    from: t.exposeString('date_from'),
    to: t.exposeString('date_to'),
    days: t.field({ type: [UsageDayRef], complexity: IN_MEMORY_LIST, description: 'Every day of the range, zeros included.', resolve: (u) => u.days }),
    endpoints: t.field({ type: [UsageEndpointRef], complexity: IN_MEMORY_LIST, resolve: (u) => u.endpoints }),
    totals: t.field({ type: UsageTotalsRef, resolve: (u) => u.totals }),
  }),
});

const UsageSummaryRef = builder.objectRef<AccountShape['usage']>('UsageSummary').implement({
  fields: (t) => ({
    today: t.field({ type: UsageTotalsRef, resolve: (u) => u.today }),
    thisMonth: t.field({ type: UsageTotalsRef, resolve: (u) => u.this_month }),
  }),
});

const RateLimitsRef = builder.objectRef<AccountShape['limits']>('RateLimits').implement({
  description: 'Per-minute limits: the account\'s override, else the plan default.',
  fields: (t) => ({
    requestsPerMinute: t.exposeInt('requests_per_minute'),
    tasksPerMinute: t.exposeInt('tasks_per_minute'),
  }),
});

const RatesRef = builder.objectRef<Rates>('Rates').implement({
  description: 'The plan\'s price table, USD per unit.',
  fields: (t) => ({
    taskPost: t.exposeFloat('task_post', { description: 'task_post, priority 1, per task.' }),
    taskPostHigh: t.exposeFloat('task_post_high', { description: 'task_post, priority 2, per task.' }),
    live: t.exposeFloat('live', { description: 'live, per task.' }),
    history: t.exposeFloat('history', { description: 'history, per element (productHistory: per call).' }),
    monitoring: t.exposeFloat('monitoring', { description: 'monitoring, per delivered observation.' }),
    search: t.exposeFloat('search', { description: 'search task_post, priority 1, per results page posted (twice taskPost).' }),
    searchHigh: t.exposeFloat('search_high', { description: 'search task_post, priority 2, per results page posted (twice taskPostHigh).' }),
    searchLive: t.exposeFloat('search_live', { description: 'search live, per task of one page (twice live).' }),
    searchMonitoring: t.exposeFloat('search_monitoring', { description: 'keyword monitoring, per results page delivered (twice monitoring).' }),
  }),
});

const AccountRef = builder.objectRef<AccountShape>('Account').implement({
  description: 'The caller\'s account (GET /v1/appendix/user_data).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login'),
    email: t.exposeString('email'),
    balance: t.exposeFloat('balance', { description: 'USD.' }),
    plan: t.exposeString('plan'),
    limits: t.field({ type: RateLimitsRef, resolve: (a) => a.limits }),
    rates: t.field({ type: RatesRef, resolve: (a) => a.rates }),
    usage: t.field({ type: UsageSummaryRef, description: 'Usage today and this month (UTC).', resolve: (a) => a.usage }),
    usageReport: t.field({
      type: UsageReportRef,
      description: 'Usage per day and endpoint; `from` / `to` UTC days (defaults: the last 30 days), at most 366 days.',
      args: { from: t.arg.string(), to: t.arg.string() },
      complexity: 5,
      resolve: async (_account, args, ctx) => {
        const query: Record<string, unknown> = {};
        if (args.from !== undefined && args.from !== null) query.date_from = args.from;
        if (args.to !== undefined && args.to !== null) query.date_to = args.to;
        const outcome = metered(ctx, await usage(ctx.db, requireAccount(ctx), query));
        return outcome.tasks[0]!.result![0] as UsageReportShape;
      },
    }),
    apiKeys: t.field({ type: [ApiKeyRef], complexity: IN_MEMORY_LIST, description: 'Active keys (at most 20).', resolve: (a) => a.api_keys }),
    webhookSecret: t.exposeString('webhook_secret', { description: 'Key of the X-Signature HMAC of webhooks.' }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: AccountRef,
    description: 'The authenticated account.',
    complexity: 5,
    resolve: async (_root, _args, ctx) => {
      const account = requireAccount(ctx);
      const outcome = metered(ctx, await userData(ctx.db, account));
      return { id: account.id, ...(outcome.tasks[0]!.result![0] as Omit<AccountShape, 'id'>) };
    },
  }),
}));
