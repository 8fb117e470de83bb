/**
 * One page read retried on other identities (operations-contract.md SOURCE_ATTEMPTS): an attempt
 * that meets a robot check, an error page, an error status or a proxy failure retires (or wears
 * out) its session and the read goes on with another session — on another proxy when the
 * marketplace has one that is not quarantined — up to `attempts` times and never past the
 * deadline (the task's budget). Each attempt is logged and returned for operators.
 */
import type { Logger } from 'pino';
import type { Marketplace } from '../../core/marketplaces.js';
import type { SourceAttempt, SourceAttemptOutcome } from '../../core/domain/task-messages.js';
import { ReadCancelledError, SourceUnavailableError } from '../browser/errors.js';
import type { ReadRequest, SourcePage } from '../browser/source-page.js';
import type { PageParse } from '../../core/product.js';
import { inlinePageParser, type PageParser } from '../parser/parse-pool.js';
import { NoSourceIdentityError, type SourceIdentities } from './source-identities.js';

/** A new attempt starts only with at least this much of the deadline left, ms. */
export const MIN_ATTEMPT_MS = 2_000;

/** An attempt is abandoned this long before the deadline, so that the read's failure is reported within it, ms. */
export const DEADLINE_MARGIN_MS = 1_000;

/** Chromium's errors of a proxy that refused, failed or could not tunnel (net/base/net_error_list.h). */
const PROXY_FAILURE = /net::ERR_(PROXY_[A-Z_]+|TUNNEL_CONNECTION_FAILED|SOCKS_[A-Z_]+|MANDATORY_PROXY_[A-Z_]+|NO_SUPPORTED_PROXIES|HTTPS_PROXY_[A-Z_]+)/;

/** What reads a page: the browser grid. */
export interface PageSource {
  read(request: ReadRequest): Promise<SourcePage>;
}

/** What {@link readWithIdentities} needs. */
export interface IdentityReadDeps {
  source: PageSource;
  identities: SourceIdentities;
  /** SOURCE_ATTEMPTS: attempts of one read, each on another identity. */
  attempts: number;
  logger: Logger;
  /** Decodes and parses each page read (worker/parser/parse-pool.ts); unset → on the caller's thread. */
  parser?: PageParser;
}

/** One read to make. */
export interface IdentityReadRequest {
  marketplace: Marketplace;
  /** The product page of this ASIN; with `search`, only names the read in logs (empty). */
  asin: string;
  /** A search results page instead of a product page (ReadRequest `search`). */
  search?: ReadRequest['search'];
  /** The caller's cancellation (the activity's). */
  signal?: AbortSignal;
  /** No attempt runs past this time (epoch ms; the task's budget); unset → no deadline but the grid's own limits. */
  deadline?: number;
}

/** A read that got the page: its bytes, its parse, and every attempt it took. */
export interface IdentityRead<P = PageParse> {
  page: SourcePage;
  /** A product page or a not-found page (any other kind was an attempt that failed); a search page's parse with a search judge. */
  parsed: P;
  /** Time spent decoding and parsing the page that was kept, ms. */
  parseMs: number;
  attempts: SourceAttempt[];
}

/**
 * Every attempt failed, or none could be made (`noIdentity`: every proxy of the marketplace is
 * quarantined). `blocked` when the last attempt met a block. The message names proxies by label only.
 */
export class ReadAttemptsFailedError extends Error {
  override name = 'ReadAttemptsFailedError';

  constructor(
    message: string,
    readonly attempts: SourceAttempt[],
    readonly blocked: boolean,
    readonly noIdentity: boolean,
  ) {
    super(message);
  }
}

/** How an attempt that threw ended, or undefined when the failure is not the identity's (rethrown). */
function failedAttempt(error: unknown, budgetSpent: boolean, proxied: boolean): { outcome: SourceAttemptOutcome; reason: string } | undefined {
  if (error instanceof ReadCancelledError && budgetSpent) return { outcome: 'unavailable', reason: 'budget' };
  if (!(error instanceof SourceUnavailableError) || error.reason === 'browser') return undefined;
  const code = /net::ERR_[A-Z_]+/.exec(error.message)?.[0];
  if (proxied && code && PROXY_FAILURE.test(code)) return { outcome: 'proxy_error', reason: code };
  return { outcome: 'unavailable', reason: code ?? error.reason };
}

/** How an attempt that got a page ended: with its parse (the read is over) or not (another identity is tried). */
export interface PageVerdict<P> {
  outcome: SourceAttemptOutcome;
  reason?: string;
  parsed?: P;
  parseMs?: number;
}

/** Decides what a page an attempt got is worth (parsing it); `productPage` by default. */
export type PageJudge<P> = (page: SourcePage, marketplace: Marketplace, parser: PageParser) => Promise<PageVerdict<P>>;

/** How an attempt that got a product page ended. */
export async function productPage(page: SourcePage, marketplace: Marketplace, parser: PageParser): Promise<PageVerdict<PageParse>> {
  // 407: the proxy wants credentials it was not given or did not accept.
  if (page.httpStatus === 407) return { outcome: 'proxy_error', reason: 'HTTP 407' };
  // The bytes move to the parse thread (page.bytes is empty afterwards): nothing here reads them again.
  const { parsed, parseMs: ms } = await parser.parse(page.bytes, page.contentType, marketplace);
  const parseMs = Math.round(ms);
  if (page.httpStatus === 404 || parsed.kind === 'not_found') return { outcome: 'not_found', parsed, parseMs };
  if (parsed.kind === 'product' && page.httpStatus < 400) return { outcome: 'product', parsed, parseMs };
  return { outcome: 'blocked', reason: parsed.kind === 'product' ? `HTTP ${page.httpStatus}` : `${parsed.kind}: ${parsed.reason}` };
}

/**
 * Reads the product page (or, with `request.search` and a search `judge`, a search results page),
 * on another identity after each failed attempt.
 * @throws ReadAttemptsFailedError when every attempt failed, the deadline left no time for another,
 *   or every proxy of the marketplace is quarantined.
 * @throws what the grid threw when the failure is not the identity's: the caller's cancellation,
 *   a browser that crashed or could not be reached, a closed grid.
 */
export async function readWithIdentities(deps: IdentityReadDeps, request: IdentityReadRequest): Promise<IdentityRead>;
export async function readWithIdentities<P>(deps: IdentityReadDeps, request: IdentityReadRequest, judge: PageJudge<P>): Promise<IdentityRead<P>>;
export async function readWithIdentities<P>(deps: IdentityReadDeps, request: IdentityReadRequest, judge?: PageJudge<P>): Promise<IdentityRead<P>> {
  const { marketplace, asin, signal, deadline } = request;
  const pageAttempt = (judge ?? productPage) as PageJudge<P>;
  const parser = deps.parser ?? inlinePageParser;
  const attempts: SourceAttempt[] = [];
  const sessions = new Set<string>();
  const proxies = new Set<string>();
  const log = deps.logger.child({ ...(request.search ? { keyword: request.search.keyword, page: request.search.page } : { asin }), marketplace: marketplace.code });
  for (let n = 1; n <= deps.attempts; n++) {
    const left = deadline === undefined ? Infinity : deadline - Date.now();
    if (n > 1 && left < MIN_ATTEMPT_MS) break;
    let lease;
    try {
      lease = await deps.identities.checkout(marketplace, { sessions, proxies });
    } catch (error) {
      if (!(error instanceof NoSourceIdentityError)) throw error;
      log.warn({ attempts }, error.message);
      throw new ReadAttemptsFailedError(error.message, attempts, attempts.at(-1)?.outcome === 'blocked', true);
    }
    const started = performance.now();
    const budget = Number.isFinite(left) ? AbortSignal.timeout(Math.max(0, left - DEADLINE_MARGIN_MS)) : undefined;
    const attemptSignal = budget ? (signal ? AbortSignal.any([signal, budget]) : budget) : signal;
    let page: SourcePage | undefined;
    let ended: Awaited<ReturnType<typeof pageAttempt>>;
    try {
      page = await deps.source.read({ marketplace, asin, identity: lease.identity, ...(request.search && { search: request.search }), ...(attemptSignal && { signal: attemptSignal }) });
      ended = await pageAttempt(page, marketplace, parser);
    } catch (error) {
      const failed = signal?.aborted ? undefined : failedAttempt(error, budget?.aborted === true, lease.proxy !== 'direct');
      if (!failed) {
        page?.done?.();
        throw error;
      }
      ended = failed;
    }
    const ms = Math.round(performance.now() - started);
    lease.settle(ended.outcome, ms, page?.setCookies, page?.requestedUrl);
    const attempt: SourceAttempt = { session: lease.sessionId, proxy: lease.proxy, ms, outcome: ended.outcome, ...(ended.reason !== undefined && { reason: ended.reason }) };
    attempts.push(attempt);
    log.info({ attempt: n, ...attempt }, 'source read attempt');
    if (page && ended.parsed) return { page, parsed: ended.parsed, parseMs: ended.parseMs ?? 0, attempts };
    page?.done?.();
    sessions.add(lease.sessionId);
    proxies.add(lease.proxy);
  }
  const last = attempts.at(-1);
  const blocked = last?.outcome === 'blocked';
  throw new ReadAttemptsFailedError(
    `source ${blocked ? 'blocked' : 'unavailable'} on ${attempts.length} attempt(s): ${attempts.map((a) => `${a.proxy} ${a.outcome}${a.reason ? ` (${a.reason})` : ''}`).join('; ')}`,
    attempts,
    blocked,
    false,
  );
}
