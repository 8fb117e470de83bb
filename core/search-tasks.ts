/**
 * Search tasks (search-page-contract.md "API"): rows of `tasks` with `kind = 'search'`, the same
 * lifecycle, charging, refunds, reconciler, webhooks and tasks_ready as product tasks
 * (core/tasks.ts). A search task reads the results pages 1..`pages` of its keyword; its result is
 * the SearchResults observations read, one per page in page order (`search_observation_ids`).
 *
 * Charging: the search price per page (core/domain/pricing.ts `searchTaskPrice`) times the pages
 * posted, at posting. A task whose page 1 says `no_results` reads no further page: it completes
 * with 20000, charged for the one page read, the pages it did not read refunded at once (our ruling
 * where the contract is silent: a page not read is not sold; docs/api.md "Search"). A page that
 * fails fails the task with 50301 and refunds it whole (core/tasks.ts `failTask`).
 */
import pLimit from 'p-limit';
import type { Db } from './db/db.js';
import type { Sql, Statement } from './db/sql.js';
import { usd } from './ledger.js';
import { STATUS, statusMessage } from './domain/status-codes.js';
import { findRecentSearch } from './search-observations.js';

/** One search task to charge; `cost` USD (all its pages). */
export interface ChargedSearchTaskInput {
  id: string;
  /** As posted: trimmed, inner white space collapsed, case kept. */
  keyword: string;
  marketplace: string;
  pages: number;
  /** The task as received plus `api` and `function`. */
  data: Record<string, unknown>;
  cost: number;
  priority?: number;
  tag?: string | null;
  postbackUrl?: string | null;
  pingbackUrl?: string | null;
  /**
   * Observations that answer the task at once (the reuse window): one per page in page order, or
   * page 1 alone when it says `no_results`. The task is then stored completed (20000) with them,
   * charged for those pages only.
   */
  reuse?: { ids: bigint[]; pagesRead: number } | null;
}

/** A charged search task as stored: `queued` (its workflow is to be started) or `completed` (from the reuse window). */
export interface CreatedSearchTask {
  state: 'queued' | 'completed';
  /** USD charged. */
  cost: number;
}

// As core/tasks.ts CHARGE_TASKS, without product reuse: the account row is locked, `walk` visits
// the tasks in order with the balance left, a task is paid when that balance covers its cost. A
// task answered from the reuse window is stored completed and charged for the pages it holds
// (`charged`), never more than its price.
const CHARGE_SEARCH_TASKS: Statement = {
  name: 'search-tasks:charge',
  text: `WITH RECURSIVE input AS (
      SELECT (e->>'id')::uuid AS id, e->>'keyword' AS keyword, e->>'marketplace' AS marketplace, (e->>'pages')::smallint AS pages,
        e->'data' AS data, (e->>'cost')::numeric AS cost, (e->>'charged')::numeric AS charged, (e->>'priority')::smallint AS priority,
        e->>'tag' AS tag, e->>'postback_url' AS postback_url, e->>'pingback_url' AS pingback_url,
        CASE WHEN e->'reuse' IS NULL OR jsonb_typeof(e->'reuse') = 'null' THEN NULL
          ELSE ARRAY(SELECT jsonb_array_elements_text(e->'reuse'))::bigint[] END AS reuse, n
      FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(e, n)
    ), steps AS (
      SELECT array_agg(i.charged ORDER BY i.n) AS cost FROM input i
    ), acct AS (
      SELECT id, balance FROM accounts WHERE id = $1::int FOR UPDATE
    ), walk (n, before, after, paid) AS (
      SELECT 0::bigint, balance::numeric, balance::numeric, false FROM acct
      UNION ALL
      SELECT w.n + 1, w.after, (CASE WHEN w.after >= s.cost THEN w.after - s.cost ELSE w.after END)::numeric, w.after >= s.cost
      FROM walk w CROSS JOIN LATERAL (SELECT cost[w.n + 1] AS cost FROM steps) s
      WHERE s.cost IS NOT NULL
    ), paid AS (
      SELECT i.*, w.before FROM input i JOIN walk w ON w.n = i.n AND w.paid
    ), charged AS (
      UPDATE accounts SET balance = accounts.balance - coalesce((SELECT sum(charged) FROM paid), 0)
      WHERE accounts.id = $1::int AND EXISTS (SELECT 1 FROM paid)
      RETURNING accounts.id
    ), entries AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT c.id, 'charge', -p.charged, p.before - p.charged, p.id, $5 FROM paid p CROSS JOIN charged c
      ORDER BY p.n
    ), task AS (
      INSERT INTO tasks (id, account_id, endpoint, kind, keyword, pages, marketplace, data, cost, expires_at, priority, tag, postback_url, pingback_url,
        state, status_code, status_message, search_observation_ids, completed_at, reused, collected_at)
      SELECT p.id, c.id, $3, 'search', p.keyword, p.pages, p.marketplace, p.data, p.charged, $4::timestamptz, coalesce(p.priority, 1),
        p.tag, p.postback_url, p.pingback_url,
        CASE WHEN p.reuse IS NOT NULL THEN 'completed' ELSE 'queued' END,
        CASE WHEN p.reuse IS NOT NULL THEN ${STATUS.OK} ELSE ${STATUS.TASK_CREATED} END,
        CASE WHEN p.reuse IS NOT NULL THEN $7 ELSE $6 END,
        coalesce(p.reuse, '{}'),
        CASE WHEN p.reuse IS NOT NULL THEN now() END,
        p.reuse IS NOT NULL,
        CASE WHEN p.reuse IS NOT NULL AND $8::boolean THEN now() END
      FROM paid p CROSS JOIN charged c
      RETURNING id, state, cost
    )
    SELECT t.state, t.cost::text AS cost FROM input i LEFT JOIN task t ON t.id = i.id ORDER BY i.n`,
};

/**
 * Charges the search tasks in the order given and stores each paid one, with its ledger entry, in
 * one statement (atomic: when it throws, nothing was charged). A task is paid when the balance left
 * after the tasks paid before it covers its cost; the others are neither charged nor stored
 * (40200). A task with `reuse` is stored completed with those observations, charged for the pages
 * they hold (`collect`: marked collected too, as live answers it at once).
 * @returns one entry per task, in order: null when it was not paid
 * @throws the driver's error (nothing charged)
 */
export async function createChargedSearchTasks(
  sql: Sql,
  batch: { accountId: number; endpoint: 'task_post' | 'live'; expiresAt: Date; note: string; collect?: boolean; tasks: readonly ChargedSearchTaskInput[] },
): Promise<(CreatedSearchTask | null)[]> {
  if (batch.tasks.length === 0) return [];
  const elements = batch.tasks.map((t) => ({
    id: t.id, keyword: t.keyword, marketplace: t.marketplace, pages: t.pages, data: t.data, cost: usd(t.cost),
    charged: usd(t.reuse ? (t.cost * t.reuse.pagesRead) / t.pages : t.cost), priority: t.priority ?? 1,
    tag: t.tag ?? null, postback_url: t.postbackUrl ?? null, pingback_url: t.pingbackUrl ?? null,
    reuse: t.reuse ? t.reuse.ids.map(String) : null,
  }));
  const { rows } = await sql.query<{ state: 'queued' | 'completed' | null; cost: string | null }>(CHARGE_SEARCH_TASKS, [
    batch.accountId, JSON.stringify(elements), batch.endpoint, batch.expiresAt, batch.note,
    statusMessage(STATUS.TASK_CREATED), statusMessage(STATUS.OK), batch.collect ?? false,
  ]);
  return rows.map((row) => (row.state === null ? null : { state: row.state, cost: Number(row.cost) }));
}

/**
 * The observations that answer a search task at once: for each page 1..`pages`, the newest stored
 * read of that keyword (case-insensitive), marketplace and page observed at or after `since`; page
 * 1 alone when it says `no_results` (no further page is read then). Null when a page has none.
 */
export async function findReusableSearch(db: Db, q: { keyword: string; marketplace: string; pages: number; since: Date }): Promise<{ ids: bigint[]; pagesRead: number } | null> {
  const ids: bigint[] = [];
  for (let page = 1; page <= q.pages; page++) {
    const found = await findRecentSearch(db, { keyword: q.keyword, marketplace: q.marketplace, page, since: q.since });
    if (!found) return null;
    ids.push(found.id);
    if (page === 1 && found.results.status === 'no_results') break;
  }
  return { ids, pagesRead: ids.length };
}

/** `findReusableSearch` for many tasks, a few lookups at a time; same order as `tasks`. */
export async function findReusableSearches(db: Db, tasks: readonly { keyword: string; marketplace: string; pages: number }[], since: Date): Promise<({ ids: bigint[]; pagesRead: number } | null)[]> {
  const limit = pLimit(4);
  return Promise.all(tasks.map((t) => limit(() => findReusableSearch(db, { ...t, since }))));
}

// Completes the task with its observations (locked, so a concurrent failure waits and then finds
// it finished); the pages it did not read are refunded: cost × (pages − read) / pages.
const COMPLETE_SEARCH_TASK: Statement = {
  name: 'search-tasks:complete',
  text: `WITH old AS (
      SELECT id, account_id, cost, pages FROM tasks WHERE id = $1::uuid AND kind = 'search' AND state IN ('queued', 'running') FOR UPDATE
    ), done AS (
      UPDATE tasks SET state = 'completed', status_code = ${STATUS.OK}, status_message = $3, search_observation_ids = $2::text[]::bigint[],
        cost = round(old.cost * $4::int / old.pages, 6), completed_at = now()
      FROM old WHERE tasks.id = old.id
      RETURNING old.account_id, old.cost - round(old.cost * $4::int / old.pages, 6) AS refund
    ), refunded AS (
      UPDATE accounts SET balance = accounts.balance + done.refund FROM done
      WHERE accounts.id = done.account_id AND done.refund > 0
      RETURNING accounts.id, accounts.balance, done.refund
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, balance_after, task_id, note)
      SELECT id, 'refund', refund, balance, $1::uuid, $5 FROM refunded
    )
    SELECT count(*)::int AS completed FROM done`,
};

/**
 * Completes a search task with the observations it read (page order): 20000, charged for the
 * `ids.length` pages read, the others refunded in the same statement (ledger `refund`, note
 * `search pages not read`).
 * @returns false when the task had already finished (nothing changed).
 */
export async function completeSearchTask(db: Db, taskId: string, ids: readonly bigint[]): Promise<boolean> {
  const { rows } = await db.sql.query<{ completed: number }>(COMPLETE_SEARCH_TASK, [
    taskId, ids.map(String), statusMessage(STATUS.OK), ids.length, 'search pages not read',
  ]);
  return rows[0]?.completed === 1;
}
