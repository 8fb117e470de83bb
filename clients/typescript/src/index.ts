/**
 * The typed client of retail-data-api. `api` is an openapi-fetch client whose every path, body and
 * answer is typed from the service's /openapi.json (src/schema.d.ts, generated). On top of it the
 * helpers users otherwise write by hand: `postAndWait` (task_post, then tasks_ready / task_get with
 * backoff), `live`, `history` as an async iterator, `verifyWebhook` for postbacks and change events,
 * and one error class, `RetailDataError`, for request-level and task-level failures.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type Product = components['schemas']['Product'];
export type TaskPostTask = components['schemas']['TaskPostTask'];
export type LiveTask = components['schemas']['LiveTask'];
export type HistoryTask = components['schemas']['HistoryTask'];

/** A task object of an envelope (api-spec.md "Task"); `cost` in USD. */
export interface TaskObject<R = unknown> {
  id: string;
  status_code: number;
  status_message: string;
  time: string;
  cost: number;
  result_count: number;
  path: string[];
  data: Record<string, unknown>;
  result: R[] | null;
}

/** The envelope every task-style endpoint answers with. */
interface Envelope<R = unknown> {
  status_code: number;
  status_message: string;
  cost: number;
  tasks: TaskObject<R>[];
}

/**
 * A failure of the service: request level (the envelope's code, with the HTTP status) or task
 * level (a task's code ≥ 40000, with its id). Codes: GET /v1/appendix/errors.
 */
export class RetailDataError extends Error {
  override name = 'RetailDataError';
  readonly status_code: number;
  readonly status_message: string;
  /** HTTP status of a request-level failure. */
  readonly http_status: number | undefined;
  /** The task of a task-level failure. */
  readonly task_id: string | undefined;

  constructor(fields: { status_code: number; status_message: string; http_status?: number; task_id?: string }) {
    super(`${fields.status_code} ${fields.status_message}`);
    this.status_code = fields.status_code;
    this.status_message = fields.status_message;
    this.http_status = fields.http_status;
    this.task_id = fields.task_id;
  }
}

export interface ClientOptions {
  /** The service's origin, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** An API key (sent as Bearer). */
  apiKey: string;
  /** A fetch of your own (tests, proxies). */
  fetch?: typeof fetch;
}

export interface PostAndWaitOptions {
  signal?: AbortSignal;
  /** Called as each task finishes (in the order they finish), with how many are done of how many. */
  onProgress?: (task: TaskObject<Product>, done: number, total: number) => void;
  /** The Idempotency-Key of the task_post (default a new UUID, reused by its retries). */
  idempotencyKey?: string;
  /** First and longest wait between polls, ms (default 250 and 5000; each wait is 1.5× the last). */
  pollMs?: { first: number; max: number };
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  signal?.throwIfAborted();
  const timer = setTimeout(() => { signal?.removeEventListener('abort', abort); resolve(); }, ms);
  const abort = () => { clearTimeout(timer); reject(signal!.reason); };
  signal?.addEventListener('abort', abort, { once: true });
});

/** The envelope of an answer, or a RetailDataError for a request-level failure. */
function envelopeOf<R>(answer: { data?: unknown; error?: unknown; response: Response }): Envelope<R> {
  const body = (answer.data ?? answer.error) as Partial<Envelope<R>> | undefined;
  if (!body || typeof body.status_code !== 'number') {
    throw new RetailDataError({ status_code: 50000, status_message: `HTTP ${answer.response.status} without an envelope`, http_status: answer.response.status });
  }
  if (!answer.response.ok || body.status_code >= 40000) {
    throw new RetailDataError({ status_code: body.status_code, status_message: body.status_message ?? '', http_status: answer.response.status });
  }
  return body as Envelope<R>;
}

/** The one task of an answer, or a RetailDataError for its code ≥ 40000. */
function onlyTask<R>(envelope: Envelope<R>): TaskObject<R> {
  const task = envelope.tasks[0]!;
  if (task.status_code >= 40000) throw new RetailDataError({ status_code: task.status_code, status_message: task.status_message, task_id: task.id });
  return task;
}

/** Retries `call` on a network error, HTTP 5xx, 429 or 409 in progress (same Idempotency-Key), up to 4 times with backoff. */
async function withRetries<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retriable = !(error instanceof RetailDataError) || (error.http_status ?? 0) >= 500 || error.http_status === 429
        || (error.http_status === 409 && /still being answered/.test(error.status_message));
      if (!retriable || attempt >= 4 || signal?.aborted) throw error;
      await sleep(250 * 2 ** attempt, signal);
    }
  }
}

export class RetailClient {
  /** The typed calls of every endpoint (openapi-fetch). */
  readonly api: Client<paths>;

  constructor(options: ClientOptions) {
    this.api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers: { Authorization: `Bearer ${options.apiKey}` }, ...(options.fetch && { fetch: options.fetch }) });
  }

  /**
   * Posts `tasks` (one task_post, 1 to 100) and resolves with every task once finished, in the
   * order posted: completed ones carry their Product in `result`; a task refused at posting or
   * failed (code ≥ 40000) is returned with its code, not thrown.
   * @throws RetailDataError for a request-level refusal (402, 40501 when no element is valid, …);
   *   the signal's reason when aborted
   */
  async postAndWait(tasks: TaskPostTask[], options: PostAndWaitOptions = {}): Promise<TaskObject<Product>[]> {
    const { signal, onProgress } = options;
    const key = options.idempotencyKey ?? randomUUID();
    const posted = await withRetries(async () => envelopeOf<Product>(await this.api.POST('/v1/retail/product/task_post', { body: tasks, headers: { 'Idempotency-Key': key }, signal })), signal);
    const finished = new Map<string, TaskObject<Product>>();
    const pending = new Set<string>();
    const finish = (task: TaskObject<Product>) => {
      finished.set(task.id, task);
      pending.delete(task.id);
      onProgress?.(task, finished.size, posted.tasks.length);
    };
    for (const task of posted.tasks) {
      if (task.status_code >= 40000) finish(task);
      else pending.add(task.id);
    }
    let wait = options.pollMs?.first ?? 250;
    for (let round = 0; pending.size > 0; round++) {
      await sleep(wait, signal);
      wait = Math.min(wait * 1.5, options.pollMs?.max ?? 5000);
      const ready = onlyTask(await withRetries(async () => envelopeOf<{ id: string }>(await this.api.GET('/v1/retail/product/tasks_ready', { signal })), signal));
      // tasks_ready lists uncollected tasks only (at most 1,000): every 4th round the rest are asked
      // for one by one, so tasks collected elsewhere (a replayed task_post) finish too.
      const readyIds = new Set((ready.result ?? []).map((r) => r.id));
      const ask = [...pending].filter((id) => readyIds.has(id) || round % 4 === 3);
      for (const id of ask) {
        const got = await withRetries(async () => envelopeOf<Product>(await this.api.GET('/v1/retail/product/task_get/{id}', { params: { path: { id } }, signal })), signal);
        const task = got.tasks[0]!;
        if (task.status_code !== 40401) finish(task);
      }
    }
    return posted.tasks.map((t) => finished.get(t.id)!);
  }

  /**
   * One product now: a stored observation at most `max_age_minutes` old (default 60), else a live
   * read. Charged at the plan's live rate (refunded for 40402 / 50301).
   * @throws RetailDataError request level (402, 40600, 40501…) or task level (40402, 50301)
   */
  async live(task: LiveTask, options: { signal?: AbortSignal; idempotencyKey?: string } = {}): Promise<Product> {
    const headers = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
    const envelope = envelopeOf<Product>(await this.api.POST('/v1/retail/product/live', { body: [task], headers, signal: options.signal }));
    return onlyTask(envelope).result![0]!;
  }

  /**
   * Every stored observation of a product, newest first, fetched a page (`limit`, default 100)
   * at a time; each page is one history call, charged at the plan's history rate.
   * @throws RetailDataError as history does
   */
  async *history(query: Omit<HistoryTask, 'offset'>, options: { signal?: AbortSignal } = {}): AsyncGenerator<Product> {
    const limit = query.limit ?? 100;
    for (let offset = 0; ; offset += limit) {
      const envelope = envelopeOf<Product>(await this.api.POST('/v1/retail/product/history', { body: [{ ...query, limit, offset }], signal: options.signal }));
      const rows = onlyTask(envelope).result ?? [];
      yield* rows;
      if (rows.length < limit) return;
    }
  }
}

/** A client of the service at `options.baseUrl` authenticated by `options.apiKey`. */
export function createRetailClient(options: ClientOptions): RetailClient {
  return new RetailClient(options);
}

/**
 * True when `rawBody` (the bytes or text exactly as received) is signed by `secret` (the account's
 * webhook secret, user_data `webhook_secret`): header `X-Signature: sha256=<hex HMAC-SHA256>` of a
 * postback or change event. Compared in constant time.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string): boolean {
  const header = headers instanceof Headers ? headers.get('x-signature') : Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-signature')?.[1];
  const signature = Array.isArray(header) ? header[0] : header;
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
