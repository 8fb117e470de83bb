/**
 * monitoring/add, monitoring/delete, monitoring/list (api-spec.md "Monitoring endpoints",
 * "Subscription status", "Subscription"; keyword subscriptions: search-page-contract.md "API"
 * Monitoring). Adding and deleting are free; deliveries are charged by the monitors
 * (core/subscriptions.ts, core/keyword-monitoring.ts). The rules live in core/subscriptions.ts;
 * this module validates, calls them, starts or stops the monitors and builds the request outcomes.
 */
import { alertRulesOf, type AlertRuleObject } from '../../core/alerts.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/db.js';
import { DomainError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { productsById } from '../../core/observations.js';
import type { Product } from '../../core/product.js';
import type { SearchResults } from '../../core/search.js';
import { searchKeywordKey, searchResultsById } from '../../core/search-observations.js';
import { checkAlertsForm } from '../../core/validation/alerts.js';
import {
  addSubscriptions,
  deleteSubscription,
  findSubscription,
  MAX_SUBSCRIPTIONS_PER_ACCOUNT,
  type Frequency,
  type SubscriptionRequest,
  type SubscriptionRow,
} from '../../core/subscriptions.js';
import type { AuthAccount } from '../../core/authentication.js';
import { batchOutcome, taskOutcome, type BatchOutcome, type TaskOutcome } from '../../core/domain/outcomes.js';
import { checkOtherKeys, readField, readRequestFields, readTaskFields } from '../../core/validation/read-fields.js';
import { alertUrlChecks, monitoringAddKeywordTask, monitoringAddTask, monitoringDeleteTask, monitoringListQuery } from '../../core/validation/requests.js';
import { failRequestIfNoneValid, taskArray } from '../../core/validation/task-body.js';
import type { MonitorLauncher } from './monitor-launcher.js';
import { STATUS } from '../../core/domain/status-codes.js';

export interface MonitoringDeps {
  config: Config;
  db: Db;
  monitors: MonitorLauncher;
  logger: Logger;
}

const API_PREFIX = ['v1', 'retail', 'monitoring'];

/**
 * Subscription (api-spec.md "Subscription"), with its change alerts (`alerts`, `alert_url`);
 * `latest_observation` only in monitoring/list. A keyword subscription has `kind: 'search'`,
 * `keyword`, `pages` and `track_asins` instead of `asin`, and `latest_results` (the SearchResults
 * of its last delivered run, page order) instead of `latest_observation`; a product subscription's
 * shape is the one api-spec.md gives.
 */
export type SubscriptionObject = ProductSubscriptionObject | KeywordSubscriptionObject;

/** The fields both kinds of subscription share. */
interface SubscriptionCommon {
  id: number;
  marketplace: string;
  frequency: Frequency;
  tag: string | null;
  external_user_id: string | null;
  status: 'active' | 'paused_balance';
  created_at: string;
  /** The alert rules with their state, in order. */
  alerts: AlertRuleObject[];
  /** Where change events are POSTed; null: recorded and listed only. */
  alert_url: string | null;
}

/** A product subscription (api-spec.md "Subscription"). */
export interface ProductSubscriptionObject extends SubscriptionCommon {
  asin: string;
  latest_observation?: Product | null;
}

/** A keyword subscription. */
export interface KeywordSubscriptionObject extends SubscriptionCommon {
  kind: 'search';
  /** As subscribed: trimmed, inner white space collapsed, case kept. */
  keyword: string;
  /** Results pages read per run, 1-5. */
  pages: number;
  /** The ASINs the rank rules judge. */
  track_asins: string[];
  /** monitoring/list only: the SearchResults of the last delivered run, page order; null before the first. */
  latest_results?: SearchResults[] | null;
}

/** What monitoring/list shows as a subscription's latest delivery. */
type Latest = { product: Product | null } | { results: SearchResults[] | null };

/** The API's Subscription of a stored row and its rules; with `latest` (list), its latest delivery is set. */
export function toSubscription(row: SubscriptionRow, alerts: AlertRuleObject[], latest?: Latest): SubscriptionObject {
  const common: SubscriptionCommon = {
    id: row.id,
    marketplace: row.marketplace,
    frequency: row.frequency as Frequency,
    tag: row.tag,
    external_user_id: row.externalUserId,
    status: row.status as SubscriptionObject['status'],
    created_at: row.createdAt.toISOString(),
    alerts,
    alert_url: row.alertUrl,
  };
  if (row.kind === 'search') {
    const { id, ...rest } = common;
    return {
      id, kind: 'search', keyword: row.keyword ?? '', pages: row.pages ?? 1, track_asins: row.trackAsins, ...rest,
      ...(latest && 'results' in latest ? { latest_results: latest.results } : {}),
    };
  }
  const { id, ...rest } = common;
  return { id, asin: row.asin ?? '', ...rest, ...(latest && 'product' in latest ? { latest_observation: latest.product } : {}) };
}

/** The monitor's view of a subscription row: what it reads and how often. */
function monitorTarget(row: SubscriptionRow, accountId: number) {
  return {
    subscriptionId: row.id, asin: row.asin ?? '', marketplace: row.marketplace, frequency: row.frequency as Frequency,
    paused: row.status === 'paused_balance', accountId, tag: row.tag,
    ...(row.kind === 'search' ? { search: { keyword: row.keyword ?? '', pages: row.pages ?? 1 } } : {}),
  };
}

const given = (element: Record<string, unknown>, key: string) => element[key] !== undefined && element[key] !== null;

/**
 * Reads one monitoring/add element: the keyword form when it has a `keyword`, else the product
 * form. A keyword element with an `asin` fails naming `keyword`; a product element with `pages` or
 * `track_asins` fails naming that field. `alert_url` must pass the webhook URL rules
 * (WEBHOOK_ALLOWLIST, WEBHOOK_PORTS); the rules must be of the element's form
 * (core/validation/alerts.ts `checkAlertsForm`).
 * @throws DomainError INVALID_FIELD (alerts: naming the rule and key) / UNKNOWN_MARKETPLACE / INVALID_ASIN.
 */
function readAddElement(config: Config, element: Record<string, unknown>): SubscriptionRequest {
  const urlChecks = alertUrlChecks({ allowlist: config.WEBHOOK_ALLOWLIST, ports: config.WEBHOOK_PORTS });
  if (given(element, 'keyword')) {
    if (given(element, 'asin')) throw DomainError.invalidField('keyword');
    const task = readTaskFields(monitoringAddKeywordTask, element, urlChecks);
    if (task.alerts) checkAlertsForm(task.alerts, { kind: 'search', trackAsins: task.track_asins ?? [] });
    return {
      kind: 'search', keyword: task.keyword, marketplace: task.marketplace.code, pages: task.pages, trackAsins: task.track_asins,
      frequency: task.frequency, tag: task.tag, externalUserId: task.external_user_id, alerts: task.alerts, alertUrl: task.alert_url,
    };
  }
  const task = readTaskFields(monitoringAddTask, element, urlChecks);
  for (const field of ['pages', 'track_asins']) {
    if (given(element, field)) throw DomainError.invalidField(field);
  }
  if (task.alerts) checkAlertsForm(task.alerts, { kind: 'product' });
  return {
    asin: task.asin, marketplace: task.marketplace.code, frequency: task.frequency, tag: task.tag, externalUserId: task.external_user_id,
    alerts: task.alerts, alertUrl: task.alert_url,
  };
}

/**
 * POST monitoring/add: each element creates a subscription, or updates frequency and tag of the
 * account's subscription of the same asin + marketplace; the result is the Subscription. A new
 * subscription is `paused_balance` when the balance is below the monitoring price or the account's
 * subscriptions are paused. Task-level 40000 beyond 10,000 subscriptions; 50301 when its monitor
 * could not be started (the new subscription is then removed again). Free of charge.
 */
export async function addMonitoring(deps: MonitoringDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const path = [...API_PREFIX, 'add'];
  const slots = elements.map((element) => ({ id: newTaskId(), data: { ...element, api: 'retail', function: 'add' } as Record<string, unknown> }));
  const errors: (DomainError | undefined)[] = [];
  const valid: { index: number; request: SubscriptionRequest }[] = [];
  for (const [index, element] of elements.entries()) {
    try {
      valid.push({ index, request: readAddElement(deps.config, element) });
      errors.push(undefined);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push(error);
    }
  }
  failRequestIfNoneValid(errors);

  const outcomes = await addSubscriptions(deps.db, account.id, valid.map((v) => v.request));
  const results = new Map<number, SubscriptionRow>();
  for (const [i, outcome] of outcomes.entries()) {
    const index = valid[i]!.index;
    if (outcome.kind === 'limit') {
      errors[index] = new DomainError('BAD_REQUEST', { message: `Bad Request. The account already monitors the maximum of ${MAX_SUBSCRIPTIONS_PER_ACCOUNT.toLocaleString('en-US')} products.` });
    } else {
      results.set(index, outcome.row);
    }
  }

  // One call per subscription (an element repeated in the body shares it), concurrently: new
  // monitors start (their first read falls later in the first interval), existing ones get their settings.
  const created = new Set(outcomes.flatMap((o) => (o.kind === 'created' ? [o.row.id] : [])));
  const latestRow = new Map<number, SubscriptionRow>();
  for (const row of results.values()) latestRow.set(row.id, row);
  const failed = new Set<number>();
  await Promise.all([...latestRow.values()].map(async (row) => {
    const target = monitorTarget(row, account.id);
    try {
      await (created.has(row.id) ? deps.monitors.start(target) : deps.monitors.configure(target));
    } catch (error) {
      deps.logger.error({ err: error, subscriptionId: row.id }, 'could not start or signal the monitor');
      failed.add(row.id);
      if (created.has(row.id)) await deleteSubscription(deps.db, account.id, row.id);
    }
  }));

  const rules = await alertRulesOf(deps.db.prisma, [...latestRow.keys()].filter((id) => !failed.has(id)));
  const tasks: TaskOutcome[] = slots.map(({ id, data }, index) => {
    const error = errors[index];
    if (error) return taskOutcome({ id, code: error.code, message: error.message, path, data });
    const row = results.get(index)!;
    if (failed.has(row.id)) return taskOutcome({ id, code: STATUS.SOURCE_UNAVAILABLE, path, data });
    return taskOutcome({ id, code: STATUS.OK, path, data, result: [toSubscription(latestRow.get(row.id)!, rules.get(row.id) ?? [])] });
  });
  return batchOutcome(tasks);
}

/** How a monitoring/delete element names its subscription. */
interface DeleteTarget {
  id?: number;
  asin?: string;
  keyword?: string;
  marketplace?: string;
}

/**
 * Reads how a monitoring/delete element names its subscription: `id` (integer ≥ 1), else `asin`
 * (or `keyword`) plus `marketplace`. With `id`, an `asin` / `keyword` / `marketplace` also given
 * must match it. Other keys must hold storable text (`checkOtherKeys`).
 * @throws DomainError INVALID_FIELD / UNKNOWN_MARKETPLACE / INVALID_ASIN.
 */
function readDeleteElement(element: Record<string, unknown>): DeleteTarget {
  const present = (field: 'id' | 'asin' | 'keyword' | 'marketplace') => given(element, field);
  const id = present('id') ? (readField(monitoringDeleteTask, 'id', element) ?? undefined) : undefined;
  if (id === undefined && !present('asin') && !present('keyword') && !present('marketplace')) throw DomainError.invalidField('id');
  if (present('asin') && present('keyword')) throw DomainError.invalidField('keyword');
  // Without `id`, asin (or keyword) and marketplace are both required: a missing one fails naming it.
  const required = id === undefined;
  if (present('keyword')) {
    const keyword = readField(monitoringDeleteTask, 'keyword', element) ?? undefined;
    if (required && !present('marketplace')) throw DomainError.invalidField('marketplace');
    const marketplace = present('marketplace') ? readField(monitoringDeleteTask, 'marketplace', element)?.code : undefined;
    checkOtherKeys(monitoringDeleteTask, element);
    return { id, keyword, marketplace };
  }
  if (required && !present('asin')) throw DomainError.invalidField('asin');
  const asin = present('asin') ? (readField(monitoringDeleteTask, 'asin', element) ?? undefined) : undefined;
  if (required && !present('marketplace')) throw DomainError.invalidField('marketplace');
  const marketplace = present('marketplace') ? readField(monitoringDeleteTask, 'marketplace', element)?.code : undefined;
  checkOtherKeys(monitoringDeleteTask, element);
  return { id, asin, marketplace };
}

/** True when a found subscription is the one the element names (every given field matches). */
function matchesTarget(found: SubscriptionRow, target: DeleteTarget): boolean {
  if (target.asin !== undefined && found.asin !== target.asin) return false;
  if (target.keyword !== undefined && (found.kind !== 'search' || searchKeywordKey(found.keyword ?? '') !== searchKeywordKey(target.keyword))) return false;
  return target.marketplace === undefined || found.marketplace === target.marketplace;
}

/**
 * POST monitoring/delete: deletes each named subscription of the account and ends its monitor; its
 * observations stay in history. The result is the deleted Subscription; task-level 40400 when the
 * account has no such subscription. Free of charge.
 */
export async function deleteMonitoring(deps: MonitoringDeps, account: AuthAccount, body: unknown): Promise<BatchOutcome> {
  const elements = taskArray(body);
  const path = [...API_PREFIX, 'delete'];
  const tasks: TaskOutcome[] = [];
  const errors: (DomainError | undefined)[] = [];
  const targets: (DeleteTarget | undefined)[] = [];
  for (const element of elements) {
    try {
      targets.push(readDeleteElement(element));
      errors.push(undefined);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      targets.push(undefined);
      errors.push(error);
    }
  }
  failRequestIfNoneValid(errors);
  const deleted: number[] = [];
  for (const [index, element] of elements.entries()) {
    const id = newTaskId();
    const data = { ...element, api: 'retail', function: 'delete' };
    const target = targets[index];
    const error = errors[index];
    if (!target || error) {
      tasks.push(taskOutcome({ id, code: error!.code, message: error!.message, path, data }));
      continue;
    }
    const found = target.id !== undefined
      ? await findSubscription(deps.db, account.id, { id: target.id })
      : target.keyword !== undefined
        ? await findSubscription(deps.db, account.id, { keyword: target.keyword, marketplace: target.marketplace! })
        : await findSubscription(deps.db, account.id, { asin: target.asin!, marketplace: target.marketplace! });
    const matches = found && matchesTarget(found, target);
    // Its rules go with it (ON DELETE CASCADE): the answer shows them as they were.
    const rules = matches ? (await alertRulesOf(deps.db.prisma, [found.id])).get(found.id) ?? [] : [];
    const row = matches ? await deleteSubscription(deps.db, account.id, found.id) : null;
    if (!row) {
      tasks.push(taskOutcome({ id, code: STATUS.NOT_FOUND, path, data }));
      continue;
    }
    deleted.push(row.id);
    tasks.push(taskOutcome({ id, code: STATUS.OK, path, data, result: [toSubscription(row, rules)] }));
  }
  // The row is gone either way; a monitor that misses the signal ends at its next status check.
  await Promise.all(deleted.map((subscriptionId) => deps.monitors.stop(subscriptionId).catch((err: unknown) => {
    deps.logger.warn({ err, subscriptionId }, 'could not signal the monitor to stop');
  })));
  return batchOutcome(tasks);
}

/**
 * GET monitoring/list: the account's subscriptions (active and paused, product and keyword), oldest
 * first, each with its latest delivery (a product's observation, a keyword's SearchResults; null
 * before the first) and its alert rules. Query `limit` 1..1000 (default 100), `offset` ≥ 0, `tag`
 * (max 255, exact match); an invalid one → request-level 400 / 40501 naming it. Four queries
 * whatever the page size: the page, its latest observations, its latest search pages, its rules.
 */
export async function listMonitoring(deps: Pick<MonitoringDeps, 'db'>, account: AuthAccount, query: Record<string, unknown>): Promise<BatchOutcome> {
  const { limit, offset, tag } = readRequestFields(monitoringListQuery, query);
  const rows = await deps.db.prisma.subscription.findMany({
    where: { accountId: account.id, ...(tag === undefined ? {} : { tag }) },
    orderBy: { id: 'asc' },
    skip: offset,
    take: limit,
  });
  const latestIds = rows.flatMap((r) => (r.latestObservationId === null ? [] : [r.latestObservationId]));
  const byId = await productsById(deps.db.prisma, latestIds);
  const searchById = await searchResultsById(deps.db, rows.flatMap((r) => r.latestSearchObservationIds));
  const rules = await alertRulesOf(deps.db.prisma, rows.map((r) => r.id));
  const latestOf = (r: SubscriptionRow): Latest => (r.kind === 'search'
    ? { results: r.latestSearchObservationIds.length ? r.latestSearchObservationIds.flatMap((id) => searchById.get(id) ?? []) : null }
    : { product: r.latestObservationId === null ? null : (byId.get(r.latestObservationId) ?? null) });
  const result = rows.map((r) => toSubscription(r, rules.get(r.id) ?? [], latestOf(r)));
  const data = { ...query, api: 'retail', function: 'list' };
  return batchOutcome([taskOutcome({ id: newTaskId(), code: STATUS.OK, path: [...API_PREFIX, 'list'], data, result })]);
}
