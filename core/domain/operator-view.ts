/**
 * The operators' view of workflows in the Temporal UI and CLI (operations-contract.md "Temporal
 * search attributes"): the custom search attributes every task, subscription and webhook-delivery
 * workflow carries, and the one-line summaries (Temporal user metadata, `staticSummary`) and
 * details shown beside them. Pure module: both the client side (core/temporal, api/services) and
 * the deterministic workflows build their attributes and summaries here.
 *
 * Nothing secret goes into them (search attributes and user metadata are stored unencoded and shown
 * to anyone with UI access): no API key, webhook secret or e-mail address. Logins cannot hold an
 * e-mail address (letters, digits, `.`, `_`, `-`); a customer's tag can, so every e-mail address in
 * a tag is replaced by `<e-mail>`; webhook URLs are shown without user info, query or fragment, and
 * path segments that may be tokens (digits, or longer than 24 characters) as `…`.
 */

/** Temporal's indexed value types that the attributes use (`@temporalio/common` SearchAttributeType). */
export type AttributeType = 'INT' | 'KEYWORD';

/** A search attribute key, structurally `@temporalio/common`'s `SearchAttributeKey`. */
export interface AttributeKey<T extends AttributeType> {
  name: string;
  type: T;
}

/** The custom search attributes and their types: the server must have every one registered. */
export const SEARCH_ATTRIBUTES = {
  /** The account's id. */
  AccountId: { name: 'AccountId', type: 'INT' },
  /** The product's ASIN. */
  Asin: { name: 'Asin', type: 'KEYWORD' },
  /** A search task's or keyword subscription's keyword (as posted: trimmed, white space collapsed). */
  Keyword: { name: 'Keyword', type: 'KEYWORD' },
  /** The spec's marketplace code (`com`, `de`, `co.uk`, …). */
  Marketplace: { name: 'Marketplace', type: 'KEYWORD' },
  /** The task's or subscription's tag (e-mail addresses replaced). */
  Tag: { name: 'Tag', type: 'KEYWORD' },
  /** The monitoring subscription's id. */
  SubscriptionId: { name: 'SubscriptionId', type: 'INT' },
  /**
   * A task's final status code (20000, 40402, 50301); a subscription's 40200 while paused for
   * balance, 40102 while its account is disabled, else its last read's code; a webhook delivery's
   * last HTTP status from the receiver (0: no answer, refused).
   */
  ResultCode: { name: 'ResultCode', type: 'INT' },
  /** A webhook delivery's kind: `postback`, `pingback`, or any other kind the delivery is given (`alert`, `change`). */
  WebhookKind: { name: 'WebhookKind', type: 'KEYWORD' },
  /**
   * The workflow's one-line summary again: the UI's list shows search attributes as columns but
   * not the static summary (server 1.29's list answer does not carry user metadata), and search
   * attributes, unlike the summary, are kept across continue-as-new.
   */
  Summary: { name: 'Summary', type: 'KEYWORD' },
} as const satisfies Record<string, AttributeKey<AttributeType>>;

/** The name of a custom search attribute. */
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** The type name the Temporal CLI takes (`--type Int`, `--search-attribute AccountId=Int`). */
export const CLI_TYPE_NAMES: Record<AttributeType, string> = { INT: 'Int', KEYWORD: 'Keyword' };

/** One attribute value, structurally `@temporalio/common`'s `SearchAttributePair`. */
export type AttributePair =
  | { key: AttributeKey<'INT'>; value: number }
  | { key: AttributeKey<'KEYWORD'>; value: string };

/** One attribute update: `null` removes the attribute (`SearchAttributeUpdatePair`). */
export type AttributeUpdate =
  | { key: AttributeKey<'INT'>; value: number | null }
  | { key: AttributeKey<'KEYWORD'>; value: string | null };

/** Temporal's limit of a static summary, bytes of UTF-8. */
export const SUMMARY_MAX_BYTES = 200;
/** How much of a tag a summary shows, characters (the attribute holds all of it). */
const SUMMARY_TAG_CHARS = 40;

const EMAIL = /[^\s@<>()[\]{},;:"'/\\]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/** `text` with every e-mail address replaced by `<e-mail>`. */
export function withoutEmails(text: string): string {
  return text.replace(EMAIL, '<e-mail>');
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts 3, as the encoder's replacement character). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** `text` cut to at most `maxBytes` of UTF-8, ending with `…` when cut; never splits a character. */
export function clipUtf8(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let out = '';
  let bytes = 3; // the ellipsis
  for (const ch of text) {
    const size = utf8Bytes(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return `${out}…`;
}

/** A tag as operators see it (attribute and summary): e-mail addresses replaced; null when none. */
export function operatorTag(tag: string | null | undefined): string | null {
  if (tag === null || tag === undefined || tag === '') return null;
  return withoutEmails(tag);
}

/**
 * A webhook URL as operators see it: scheme, host, port and path, without user info, query or
 * fragment; path segments with digits or longer than 24 characters (possible tokens) as `…`.
 * @returns null for a string that is not an absolute URL.
 */
export function displayUrl(url: string): string | null {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)([^?#]*)/i.exec(url);
  if (!match) return null;
  const [, scheme, host, pathname] = match;
  const segments = pathname!.split('/').map((s) => (s === '' || (s.length <= 24 && !/\d/.test(s)) ? withoutEmails(s) : '…'));
  return `${scheme!.toLowerCase()}://${host!.toLowerCase()}${segments.join('/')}`;
}

/** What a product task's attributes and summary are made of. */
export interface TaskFacts {
  taskId: string;
  asin: string;
  /** Marketplace code (`com`, `de`, …). */
  marketplace: string;
  accountId?: number;
  /** The account's login (never an e-mail address). */
  login?: string;
  tag?: string | null;
  /** `task_post` (default) or `live`. */
  endpoint?: 'task_post' | 'live';
  /** task_post priority (1 or 2). */
  priority?: number;
  /** Display URLs of the task's webhooks (`displayUrl`), by kind. */
  webhooks?: Record<string, string | null>;
}

/** The search attributes a product task's workflow starts with. */
export function taskAttributes(task: Pick<TaskFacts, 'asin' | 'marketplace' | 'accountId' | 'tag'>): AttributePair[] {
  const tag = operatorTag(task.tag);
  return [
    ...(task.accountId === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.AccountId, value: task.accountId }]),
    { key: SEARCH_ATTRIBUTES.Asin, value: task.asin },
    { key: SEARCH_ATTRIBUTES.Marketplace, value: task.marketplace },
    ...(tag === null ? [] : [{ key: SEARCH_ATTRIBUTES.Tag, value: tag }]),
  ];
}

/** `account 7 demo` (or `account 7`), empty without an account. */
function accountText(accountId: number | undefined, login: string | undefined): string {
  if (accountId === undefined) return '';
  return ` · account ${accountId}${login ? ` ${login}` : ''}`;
}

function tagText(tag: string | null | undefined): string {
  const shown = operatorTag(tag);
  return shown === null ? '' : ` · tag ${clipUtf8(shown, SUMMARY_TAG_CHARS)}`;
}

/** One line for the UI's list: `task B07CL39Z8Q on com · account 7 demo · tag op-a` (at most 200 bytes). */
export function taskSummary(task: TaskFacts): string {
  const what = task.endpoint === 'live' ? 'live read' : 'task';
  const priority = task.priority === 2 ? ' · priority 2' : '';
  return clipUtf8(`${what} ${task.asin} on ${task.marketplace}${accountText(task.accountId, task.login)}${tagText(task.tag)}${priority}`, SUMMARY_MAX_BYTES);
}

/** The task's details (Markdown lines) for the workflow's page in the UI. */
export function taskDetails(task: TaskFacts): string {
  const webhooks = Object.entries(task.webhooks ?? {}).map(([kind, url]) => `${kind}${url ? ` to ${url}` : ''}`);
  return [
    `${task.endpoint ?? 'task_post'} task ${task.taskId}${task.priority ? `, priority ${task.priority}` : ''}`,
    `product: ${task.asin} on ${task.marketplace}`,
    ...(task.accountId === undefined ? [] : [`account: ${task.accountId}${task.login ? ` (${task.login})` : ''}`]),
    ...(operatorTag(task.tag) === null ? [] : [`tag: ${operatorTag(task.tag)}`]),
    ...(webhooks.length ? [`webhooks: ${webhooks.join(', ')}`] : []),
  ].join('\n');
}

/** What a search task's attributes and summary are made of. */
export interface SearchTaskFacts extends Omit<TaskFacts, 'asin'> {
  keyword: string;
  /** Results pages to read (1-5). */
  pages: number;
}

/** The search attributes a search task's workflow starts with. */
export function searchTaskAttributes(task: Pick<SearchTaskFacts, 'keyword' | 'marketplace' | 'accountId' | 'tag'>): AttributePair[] {
  const tag = operatorTag(task.tag);
  return [
    ...(task.accountId === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.AccountId, value: task.accountId }]),
    // A keyword may hold an e-mail address as a tag may: shown without it.
    { key: SEARCH_ATTRIBUTES.Keyword, value: withoutEmails(task.keyword) },
    { key: SEARCH_ATTRIBUTES.Marketplace, value: task.marketplace },
    ...(tag === null ? [] : [{ key: SEARCH_ATTRIBUTES.Tag, value: tag }]),
  ];
}

/** One line for the UI's list: `search "running shoes" p1-3 on com · account 7 demo` (at most 200 bytes). */
export function searchTaskSummary(task: SearchTaskFacts): string {
  const what = task.endpoint === 'live' ? 'live search' : 'search';
  const pages = task.pages > 1 ? ` p1-${task.pages}` : '';
  const priority = task.priority === 2 ? ' · priority 2' : '';
  const keyword = clipUtf8(withoutEmails(task.keyword), 80);
  return clipUtf8(`${what} "${keyword}"${pages} on ${task.marketplace}${accountText(task.accountId, task.login)}${tagText(task.tag)}${priority}`, SUMMARY_MAX_BYTES);
}

/** The search task's details (Markdown lines) for the workflow's page in the UI. */
export function searchTaskDetails(task: SearchTaskFacts): string {
  const webhooks = Object.entries(task.webhooks ?? {}).map(([kind, url]) => `${kind}${url ? ` to ${url}` : ''}`);
  return [
    `${task.endpoint ?? 'task_post'} search task ${task.taskId}${task.priority ? `, priority ${task.priority}` : ''}`,
    `keyword: "${withoutEmails(task.keyword)}" on ${task.marketplace}, pages 1-${task.pages}`,
    ...(task.accountId === undefined ? [] : [`account: ${task.accountId}${task.login ? ` (${task.login})` : ''}`]),
    ...(operatorTag(task.tag) === null ? [] : [`tag: ${operatorTag(task.tag)}`]),
    ...(webhooks.length ? [`webhooks: ${webhooks.join(', ')}`] : []),
  ].join('\n');
}

/** What a subscription's attributes and summary are made of. */
export interface SubscriptionFacts {
  subscriptionId: number;
  /** The product of a product subscription ('' for a keyword subscription). */
  asin: string;
  /** Keyword subscriptions: the keyword and the results pages of each run. */
  search?: { keyword: string; pages: number };
  marketplace: string;
  frequency: string;
  accountId?: number;
  tag?: string | null;
  paused?: boolean;
}

/** The search attributes a subscription's monitor starts with (ResultCode 40200 when it starts paused). */
export function subscriptionAttributes(sub: SubscriptionFacts, pausedCode: number): AttributePair[] {
  return [
    { key: SEARCH_ATTRIBUTES.SubscriptionId, value: sub.subscriptionId },
    ...(sub.search ? searchTaskAttributes({ ...sub, keyword: sub.search.keyword }) : taskAttributes(sub)),
    ...(sub.paused ? [{ key: SEARCH_ATTRIBUTES.ResultCode, value: pausedCode }] : []),
  ];
}

/** One line: `hourly subscription 12: B07CL39Z8Q on com · account 7 · tag x` (a keyword: `"running shoes" p1-3 on com`). */
export function subscriptionSummary(sub: SubscriptionFacts): string {
  const what = sub.search
    ? `"${clipUtf8(withoutEmails(sub.search.keyword), 80)}"${sub.search.pages > 1 ? ` p1-${sub.search.pages}` : ''}`
    : sub.asin;
  return clipUtf8(`${sub.frequency} subscription ${sub.subscriptionId}: ${what} on ${sub.marketplace}${accountText(sub.accountId, undefined)}${tagText(sub.tag)}`, SUMMARY_MAX_BYTES);
}

/** What a webhook delivery's attributes and summary are made of. */
export interface DeliveryFacts {
  /** The task whose postback or pingback is delivered; absent for a stored event (change, redelivery). */
  taskId?: string;
  /** The stored event delivered (change events, redeliveries). */
  eventId?: string;
  subscriptionId?: number;
  /** A new delivery of a stored event started by its account (`redeliver`). */
  redelivery?: boolean;
  kind: string;
  accountId?: number;
  /** The receiver as `displayUrl` shows it. */
  target?: string | null;
  asin?: string;
  marketplace?: string;
  tag?: string | null;
}

/** The search attributes a webhook delivery starts with. */
export function deliveryAttributes(delivery: DeliveryFacts): AttributePair[] {
  const tag = operatorTag(delivery.tag);
  return [
    { key: SEARCH_ATTRIBUTES.WebhookKind, value: delivery.kind },
    ...(delivery.accountId === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.AccountId, value: delivery.accountId }]),
    ...(delivery.subscriptionId === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.SubscriptionId, value: delivery.subscriptionId }]),
    ...(delivery.asin === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.Asin, value: delivery.asin }]),
    ...(delivery.marketplace === undefined ? [] : [{ key: SEARCH_ATTRIBUTES.Marketplace, value: delivery.marketplace }]),
    ...(tag === null ? [] : [{ key: SEARCH_ATTRIBUTES.Tag, value: tag }]),
  ];
}

/**
 * One line: `postback of task 0190… to https://example.com/hook · account 7`, or for a stored event
 * `change of event 0190… (subscription 12: B07CL39Z8Q on com) · account 7`.
 */
export function deliverySummary(delivery: DeliveryFacts): string {
  const to = delivery.target ? ` to ${delivery.target}` : '';
  const product = delivery.asin !== undefined && delivery.marketplace !== undefined ? `${delivery.asin} on ${delivery.marketplace}` : null;
  const about = delivery.subscriptionId !== undefined
    ? ` (subscription ${delivery.subscriptionId}${product ? `: ${product}` : ''})`
    : '';
  const subject = delivery.taskId !== undefined ? `task ${delivery.taskId}` : `event ${delivery.eventId ?? '?'}`;
  const what = delivery.redelivery ? `redelivery of ${delivery.kind}` : delivery.kind;
  return clipUtf8(`${what} of ${subject}${about}${to}${accountText(delivery.accountId, undefined)}`, SUMMARY_MAX_BYTES);
}

/**
 * The labels of a workflow start: its search attributes with `Summary`, and the same line as the
 * static summary (plus the static details when given), ready to spread into the start options.
 */
export function startLabels(attributes: AttributePair[], summary: string, details?: string): { typedSearchAttributes: AttributePair[]; staticSummary: string; staticDetails?: string } {
  return {
    typedSearchAttributes: [...attributes, { key: SEARCH_ATTRIBUTES.Summary, value: summary }],
    staticSummary: summary,
    ...(details === undefined ? {} : { staticDetails: details }),
  };
}

/** The ResultCode update: the code, or removal (`null`). */
export function resultCodeUpdate(code: number | null): AttributeUpdate[] {
  return [{ key: SEARCH_ATTRIBUTES.ResultCode, value: code }];
}

/** The updates after a subscription's frequency or tag changed: its `Tag` (removed when none) and `Summary`. */
export function subscriptionUpdates(sub: SubscriptionFacts): AttributeUpdate[] {
  return [
    { key: SEARCH_ATTRIBUTES.Tag, value: operatorTag(sub.tag) },
    { key: SEARCH_ATTRIBUTES.Summary, value: subscriptionSummary(sub) },
  ];
}

/** A time as operators read it: `2026-11-25 14:00:05 UTC`. */
export function utcText(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
