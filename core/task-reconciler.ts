/**
 * The task reconciler: the safety net for charged tasks that nothing will finish. task_post charges
 * a task and then starts its workflow; a process that dies in between (or a database error after
 * the charge) leaves a charged task `queued` with no workflow. A workflow that closed without
 * finishing its task (terminated by an operator, timed out) leaves it unfinished too, and so does
 * an API process that dies while a live request waits. Run every minute by the worker's
 * `taskReconciler` schedule (worker/schedules.ts), it looks at unfinished tasks:
 * - task_post, older than `RECONCILE_GRACE_MS` and not looked at for `RECONCILE_RECHECK_MS`:
 *   no workflow → starts it (as the API would have); workflow running → looked at again later;
 *   workflow closed, or the start refused → fails the task with 50301 and refunds it (its webhooks
 *   then report it);
 * - live, older than LIVE_BUDGET + `LIVE_ORPHAN_MARGIN_MS`: no request waits for it any more →
 *   fails it with 50301 and refunds it;
 * - any unfinished task whose productTask or searchTask workflow closed in the last `RECONCILE_RECHECK_MS`
 *   without finishing it (an operator terminated a stuck task, or it timed out), found with one
 *   visibility query, whatever its age or when it was last looked at → fails it with 50301 and
 *   refunds it, so ending a workflow by hand never leaves its customer charged for more than a
 *   minute.
 * At most `RECONCILE_BATCH` tasks per run, those looked at least recently first. Every transition
 * is the conditional one of core/tasks.ts, so a task finishing meanwhile is never refunded twice.
 * Search tasks (`kind` search) are reconciled alike, their workflow being `searchTask`.
 */
import pLimit from 'p-limit';
import type { Db } from './db/db.js';
import type { Statement } from './db/sql.js';
import type { Logger } from './logger.js';
import { failTask } from './tasks.js';
import type { TaskWorkflows } from './temporal/task-launcher.js';
import type { ReconcileReport } from './domain/maintenance-reports.js';
import { urgencyOfPriority } from './domain/task-messages.js';
import { webhookKindsOf } from './domain/webhook-messages.js';
import { STATUS } from './domain/status-codes.js';

/** A task_post task younger than this is left alone: its request may still be starting it (ms). */
export const RECONCILE_GRACE_MS = 2 * 60_000;
/** A task whose workflow was found running is looked at again after this long (ms). */
export const RECONCILE_RECHECK_MS = 10 * 60_000;
/** Beyond LIVE_BUDGET, how long an unfinished live task may wait for its request to fail it (ms). */
export const LIVE_ORPHAN_MARGIN_MS = 60_000;
/** Tasks looked at per run, at most. */
export const RECONCILE_BATCH = 200;
/** Temporal calls in flight at once during a run. */
const CONCURRENCY = 8;

/** What the reconciler needs; `liveBudgetMs` is LIVE_BUDGET. */
export interface ReconcilerDeps {
  db: Db;
  workflows: TaskWorkflows;
  logger: Logger;
  liveBudgetMs: number;
}

interface Candidate {
  id: string;
  account_id: number;
  login: string;
  endpoint: string;
  kind: 'product' | 'search';
  /** Product tasks. */
  asin: string | null;
  /** Search tasks. */
  keyword: string | null;
  pages: number | null;
  marketplace: string;
  priority: number;
  tag: string | null;
  postback_url: string | null;
  pingback_url: string | null;
}

const CANDIDATE_COLUMNS = `t.id::text AS id, t.account_id, a.login, t.endpoint, t.kind, t.asin, t.keyword, t.pages::int AS pages, t.marketplace, t.priority::int AS priority,
  t.tag, t.postback_url, t.pingback_url`;

const CANDIDATES: Statement = {
  name: 'reconciler:candidates',
  text: `SELECT ${CANDIDATE_COLUMNS}
    FROM tasks t JOIN accounts a ON a.id = t.account_id
    WHERE t.state IN ('queued', 'running') AND (
      (t.endpoint = 'live' AND t.created_at < now() - $3::int * interval '1 millisecond')
      OR (t.endpoint <> 'live' AND (
        (t.reconciled_at IS NULL AND t.created_at < now() - $1::int * interval '1 millisecond')
        OR t.reconciled_at < now() - $2::int * interval '1 millisecond')))
    ORDER BY coalesce(t.reconciled_at, t.created_at)
    LIMIT $4::int`,
};

/** The unfinished ones of the tasks whose workflow closed without finishing them. */
const ENDED_UNFINISHED: Statement = {
  name: 'reconciler:ended-unfinished',
  text: `SELECT ${CANDIDATE_COLUMNS}
    FROM tasks t JOIN accounts a ON a.id = t.account_id
    WHERE t.id = ANY($1::uuid[]) AND t.state IN ('queued', 'running')`,
};

const MARK_RECONCILED: Statement = {
  name: 'reconciler:mark',
  text: `UPDATE tasks SET reconciled_at = now() WHERE id = ANY($1::uuid[])`,
};

/** What became of one task in a run. */
type Verdict = 'started' | 'refunded' | 'running' | 'error' | 'none';

/**
 * One run of the reconciler (see the module comment). Errors on one task (Temporal or the database
 * unreachable) leave it for the next run; they are counted and logged, never thrown.
 * @param options.batch tasks looked at, at most (default `RECONCILE_BATCH`).
 * @throws only when the candidates cannot be read at all.
 */
export async function reconcileTasks(deps: ReconcilerDeps, options: { batch?: number } = {}): Promise<ReconcileReport> {
  const sql = deps.db.sql;
  const { rows } = await sql.query<Candidate>(CANDIDATES, [
    RECONCILE_GRACE_MS, RECONCILE_RECHECK_MS, deps.liveBudgetMs + LIVE_ORPHAN_MARGIN_MS, options.batch ?? RECONCILE_BATCH,
  ]);
  const limit = pLimit(CONCURRENCY);
  const verdicts = await Promise.all(rows.map((task) => limit(() => reconcileOne(deps, task))));
  const looked = rows.filter((_, i) => verdicts[i] === 'running' || verdicts[i] === 'started').map((t) => t.id);
  if (looked.length) await sql.query(MARK_RECONCILED, [looked]).catch((err: unknown) => deps.logger.warn({ err }, 'could not record reconciled tasks'));
  const ended = await endedWithoutResult(deps, new Set(rows.map((t) => t.id)));
  verdicts.push(...ended);
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
  const report: ReconcileReport = { checked: rows.length + ended.length, started: count('started'), refunded: count('refunded'), running: count('running'), errors: count('error') };
  if (report.started || report.refunded || report.errors) deps.logger.warn({ ...report }, 'task reconciler finished tasks left behind');
  return report;
}

/**
 * Refunds the unfinished tasks (other than `seen`) whose workflow closed in the last
 * RECONCILE_RECHECK_MS without finishing them. A failed look is logged and left for the next run.
 */
async function endedWithoutResult(deps: ReconcilerDeps, seen: Set<string>): Promise<Verdict[]> {
  let tasks: Candidate[];
  try {
    const ids = (await deps.workflows.closedUnfinished(Date.now() - RECONCILE_RECHECK_MS, RECONCILE_BATCH)).filter((id) => !seen.has(id));
    if (!ids.length) return [];
    tasks = (await deps.db.sql.query<Candidate>(ENDED_UNFINISHED, [ids])).rows;
  } catch (error) {
    deps.logger.error({ err: error }, 'could not look for task workflows that ended without a result; next run');
    return ['error'];
  }
  const limit = pLimit(CONCURRENCY);
  return Promise.all(tasks.map((task) => limit(async (): Promise<Verdict> => {
    try {
      if (!(await refund(deps, task))) return 'none';
      deps.logger.warn({ taskId: task.id, endpoint: task.endpoint }, 'the workflow was ended without finishing its task; refunded it');
      return 'refunded';
    } catch (error) {
      deps.logger.error({ err: error, taskId: task.id }, 'could not refund the task of an ended workflow; next run');
      return 'error';
    }
  })));
}

async function reconcileOne(deps: ReconcilerDeps, task: Candidate): Promise<Verdict> {
  const log = deps.logger.child({ taskId: task.id, endpoint: task.endpoint });
  try {
    if (task.endpoint === 'live') return (await refund(deps, task)) ? 'refunded' : 'none';
    const state = await deps.workflows.state(task.id);
    if (state === 'running') return 'running';
    if (state === 'missing') {
      try {
        const what = task.kind === 'search'
          ? { kind: 'search' as const, keyword: task.keyword!, pages: task.pages!, marketplace: task.marketplace }
          : { asin: task.asin!, marketplace: task.marketplace };
        await deps.workflows.start({
          taskId: task.id, ...what,
          webhookKinds: webhookKindsOf(task.postback_url, task.pingback_url), urgency: urgencyOfPriority(task.priority), accountId: task.account_id,
          login: task.login, tag: task.tag, priority: task.priority, webhookUrls: { postback: task.postback_url, pingback: task.pingback_url },
        });
        log.warn('started the workflow of a charged task that had none');
        return 'started';
      } catch (error) {
        log.error({ err: error }, 'could not start the workflow of a charged task; refunding it');
      }
    } else {
      log.warn('the workflow closed without finishing its task; refunding it');
    }
    return (await refund(deps, task)) ? 'refunded' : 'none';
  } catch (error) {
    log.error({ err: error }, 'could not reconcile the task; next run');
    return 'error';
  }
}

/** Fails the task with 50301 and refunds it; then starts its webhooks (task_post). False when it had finished meanwhile. */
async function refund(deps: ReconcilerDeps, task: Candidate): Promise<boolean> {
  if (!(await failTask(deps.db, task.id, STATUS.SOURCE_UNAVAILABLE))) return false;
  const kinds = webhookKindsOf(task.postback_url, task.pingback_url);
  if (kinds.length) {
    await deps.workflows.startWebhooks({
      taskId: task.id, kinds, accountId: task.account_id, asin: task.asin, marketplace: task.marketplace, tag: task.tag,
      urls: { postback: task.postback_url, pingback: task.pingback_url },
    })
      .catch((err: unknown) => deps.logger.error({ err, taskId: task.id }, 'could not start the webhook deliveries of a refunded task'));
  }
  return true;
}
