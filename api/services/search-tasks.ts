/**
 * The search endpoints (search-page-contract.md "API"): task_post, live and rank_history under
 * /v1/retail/search, with the envelope, codes, limits and money rules of the product endpoints
 * (api-spec.md). task_get and tasks_ready are core/services/task-results.ts with kind `search`.
 */
import { runChargedBody, runChargedTasks, type ChargedOutcome } from './charged-tasks.js';
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { chargedRead } from '../../core/ledger.js';
import { planOf, searchTaskPrice } from '../../core/pricing.js';
import { rankHistory } from '../../core/search-observations.js';
import { createChargedSearchTasks, findReusableSearch, findReusableSearches } from '../../core/search-tasks.js';
import { failTask } from '../../core/tasks.js';
import { withSearchResults } from '../../core/services/task-results.js';
import { collectTask } from '../../core/task-reads.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, SEARCH_API_PREFIX, taskOutcome, type BatchOutcome } from '../../core/domain/outcomes.js';
import { readTaskFields } from '../../core/validation/read-fields.js';
import { rankHistoryTask, searchLiveTask, searchTaskPostTask, searchWebhookUrlChecks } from '../../core/validation/search-fields.js';
import { taskArray } from '../../core/validation/task-body.js';
import { SEARCH_REUSE_WINDOW_MS, urgencyOfPriority } from '../../core/domain/task-messages.js';
import { webhookKindsOf } from '../../core/domain/webhook-messages.js';
import { STATUS } from '../../core/domain/status-codes.js';
import { retentionMs, startOrFail, startWebhooks, type ProductTaskDeps, type WebhookStart } from './product-tasks.js';


/**
 * POST /v1/retail/search/task_post: validates each element (40501 naming the field, 40502 unknown
 * marketplace), then charges the valid ones in order in one statement at the search price per page
 * times `pages` (40200 for those the balance left cannot cover; HTTP 402 when none can be paid).
 * A task whose every page (or page 1 saying `no_results`) was read within the last 60 minutes is
 * completed at once from those reads, charged for the pages it holds; the others are queued and
 * their `searchTask` workflow started as product tasks' are (`startOrFail`: a refused start is
 * 50301, refunded).
 * @throws the request-level errors of `runChargedBody`; 40600 for priority 2 on a plan without it
 */
export async function searchTaskPost(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const plan = planOf(account.plan);
  if (!plan.features.highPriority && elements.some((e) => e.priority === 2)) throw new DomainError('FEATURE_NOT_AVAILABLE');
  const path = [...SEARCH_API_PREFIX, 'task_post'];
  const checks = searchWebhookUrlChecks({ allowlist: deps.config.WEBHOOK_ALLOWLIST, ports: deps.config.WEBHOOK_PORTS });
  const finishedWithWebhooks: WebhookStart[] = [];
  const tasks = await runChargedBody(elements, { fn: 'task_post', path, logger: deps.logger }, {
    validate: (element) => readTaskFields(searchTaskPostTask, element, checks),
    charge: async (valid) => {
      const reuse = await findReusableSearches(deps.db, valid.map(({ fields: f }) => ({ keyword: f.keyword, marketplace: f.marketplace.code, pages: f.pages })), new Date(Date.now() - SEARCH_REUSE_WINDOW_MS));
      const created = await createChargedSearchTasks(deps.db.sql, {
        accountId: account.id, endpoint: 'task_post', note: 'search task_post', expiresAt: new Date(Date.now() + retentionMs(deps.config)),
        tasks: valid.map(({ id, data, fields: f }, i) => ({
          id, data, keyword: f.keyword, marketplace: f.marketplace.code, pages: f.pages, cost: searchTaskPrice(plan.rates, f.priority, f.pages),
          priority: f.priority, tag: f.tag, postbackUrl: f.postback_url, pingbackUrl: f.pingback_url, reuse: reuse[i] ?? null,
        })),
      });
      return valid.map(({ id, fields: f }, i): ChargedOutcome | DomainError => {
        const task = created[i];
        if (!task) return new DomainError('PAYMENT_REQUIRED');
        const webhookKinds = webhookKindsOf(f.postback_url, f.pingback_url);
        const urls = { postback: f.postback_url, pingback: f.pingback_url };
        if (task.state === 'queued') {
          const settle = startOrFail(deps, {
            kind: 'search', taskId: id, keyword: f.keyword, pages: f.pages, marketplace: f.marketplace.code, accountId: account.id, tag: f.tag,
            webhookKinds, urgency: urgencyOfPriority(f.priority), login: account.login, priority: f.priority, webhookUrls: urls,
          });
          return { code: STATUS.TASK_CREATED, cost: task.cost, settle };
        }
        if (webhookKinds.length) finishedWithWebhooks.push({ taskId: id, kinds: webhookKinds, accountId: account.id, marketplace: f.marketplace.code, tag: f.tag, urls });
        return { code: STATUS.TASK_CREATED, cost: task.cost };
      });
    },
  });
  await Promise.all(finishedWithWebhooks.map((t) => startWebhooks(deps, t)));
  return batchOutcome(tasks);
}

/**
 * POST /v1/retail/search/live: exactly one element, results page 1, charged the plan's
 * `search_live` rate; answered from a read of the last 60 minutes at once, else read through a
 * `searchTask` workflow within LIVE_BUDGET; when the budget runs out (or the page cannot be read)
 * the task answers 50301 and is refunded.
 * @throws AppError 40600 (plan without live), 40000 / 405xx (HTTP 400, body), 40200 (HTTP 402)
 */
export async function searchLive(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const [element] = taskArray(body, { exactlyOne: true });
  const plan = planOf(account.plan);
  if (!plan.features.live) throw new DomainError('FEATURE_NOT_AVAILABLE');
  const id = newTaskId();
  const path = [...SEARCH_API_PREFIX, 'live'];
  const data = { ...element!, api: 'retail', function: 'live' };
  // live carries exactly one task: when it is invalid, no task of the request is (HTTP 400).
  const { keyword, marketplace: { code: marketplace } } = readTaskFields(searchLiveTask, element!);
  const reuse = await findReusableSearch(deps.db, { keyword, marketplace, pages: 1, since: new Date(Date.now() - SEARCH_REUSE_WINDOW_MS) });
  const [created] = await createChargedSearchTasks(deps.db.sql, {
    accountId: account.id, endpoint: 'live', note: 'search live', collect: true, expiresAt: new Date(Date.now() + retentionMs(deps.config)),
    tasks: [{ id, data, keyword, marketplace, pages: 1, cost: plan.rates.search_live, reuse }],
  });
  if (!created) throw new DomainError('PAYMENT_REQUIRED');
  if (created.state === 'queued') {
    const budgetMs = deps.config.LIVE_BUDGET;
    try {
      await deps.launcher.start({ kind: 'search', taskId: id, keyword, pages: 1, marketplace, budgetMs, urgency: 'live', accountId: account.id, login: account.login });
      if (!(await deps.launcher.waitFor(id, budgetMs))) {
        await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
        await deps.launcher.cancel(id);
      }
    } catch (error) {
      deps.logger.error({ err: error, taskId: id }, 'live search failed');
      await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
    }
  }
  let task = await collectTask(deps.db.sql, id, account.id, 'search');
  if (task && !task.completedAt) {
    // Its workflow ended without finishing it (terminated by an operator): 50301, refunded.
    await failTask(deps.db, id, STATUS.SOURCE_UNAVAILABLE);
    task = await collectTask(deps.db.sql, id, account.id, 'search');
  }
  if (!task) throw new Error(`live search task ${id} vanished`);
  const view = await withSearchResults(deps.db, task);
  const ok = view.statusCode === STATUS.OK;
  const cost = ok ? Number((await deps.db.prisma.task.findUniqueOrThrow({ where: { id }, select: { cost: true } })).cost) : 0;
  return batchOutcome([taskOutcome({ id, code: view.statusCode, message: view.statusMessage, cost, path, data, result: ok ? (view.searchResults ?? []) : null })]);
}

/**
 * POST /v1/retail/search/rank_history: per valid element, charges the plan's `history` rate (as
 * product history: charge and read in one transaction) and answers where `asin` stood in the
 * stored reads of `keyword` on `marketplace` over the last `days` days, newest first: one
 * `{ observed_at, page, position, organic_position, sponsored }` per read, null positions for reads
 * where it was absent (core/search-observations.ts `rankHistory`).
 * @throws the request-level errors of `runChargedTasks`
 */
export async function searchRankHistory(deps: ProductTaskDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const cost = planOf(account.plan).rates.history;
  const path = [...SEARCH_API_PREFIX, 'rank_history'];
  const tasks = await runChargedTasks(elements, { fn: 'rank_history', path, logger: deps.logger }, async (element, { id, payable, paid }) => {
    const { keyword, marketplace: { code: marketplace }, asin, days } = readTaskFields(rankHistoryTask, element);
    payable();
    const read = await chargedRead(deps.db, { accountId: account.id, amount: cost, taskId: id, note: 'rank_history' },
      (sql) => rankHistory({ ...deps.db, sql }, { keyword, marketplace, asin, days }));
    if (read === null) throw new DomainError('PAYMENT_REQUIRED');
    paid();
    return { code: STATUS.OK, cost, result: read.value };
  });
  return batchOutcome(tasks);
}
