/**
 * Navigates one page and captures the main document exactly as the server sent it.
 *
 * `HTTPResponse.buffer()` is not enough: Chromium re-encodes text bodies it decoded (a Shift_JIS
 * page comes back as UTF-8, puppeteer#6478). So the page's own CDP session pauses the main
 * document at the Fetch domain's Response stage and streams the raw body (the bytes on the wire,
 * in base64 chunks: `responseBody`). Chromium's navigation is then cancelled (`net::ERR_ABORTED`,
 * which commits nothing, not even an error page): the service parses the bytes itself, so the
 * page's renderer never receives a document — no markup parsed, no script run, no subresource
 * requested, no layout or paint (a read costs the request, not a render). The same handler blocks
 * every other request and, in replay mode, every other origin (a redirect's target included).
 */
import type { CDPSession, Page, Protocol } from 'puppeteer-core';

/**
 * The only resource type a read requests (CDP `Network.ResourceType`): the document and its
 * redirects. Anything else the page would fetch is blocked.
 */
export const READ_RESOURCE_TYPE = 'Document';

/**
 * How long a read that collects cookies waits, after the bytes are taken, for the document's raw
 * response headers (`Network.responseReceivedExtraInfo`, where its Set-Cookie headers are), ms.
 */
const EXTRA_INFO_WAIT_MS = 1_000;

/** What {@link capturePage} needs. */
export interface CaptureOptions {
  /** The product URL to navigate to. */
  url: string;
  /** Navigation time limit, ms. */
  timeoutMs: number;
  /** When set, requests to any other origin are blocked. */
  allowedOrigin?: string;
  /**
   * Collect the document's `Set-Cookie` headers (a session keeps them). The Fetch domain hides
   * them, so this also listens to the Network domain's raw response headers.
   */
  collectCookies?: boolean;
}

/** The main document as received. */
export interface CapturedDocument {
  /** HTTP status of the main document (after redirects). */
  status: number;
  /** The body exactly as received on the wire. */
  bytes: Uint8Array;
  /** The `Content-Type` header, when the response had one. */
  contentType?: string;
  /**
   * Its `Set-Cookie` header values, its redirects' included (with `collectCookies`; else empty):
   * Chromium keeps none of them (the document's navigation is aborted).
   */
  setCookies: string[];
}

function header(headers: Protocol.Fetch.HeaderEntry[] | undefined, name: string): string | undefined {
  return headers?.find((h) => h.name.toLowerCase() === name)?.value;
}

/** Every `Set-Cookie` value of raw response headers (several are joined by newlines). */
function setCookiesOf(headers: Protocol.Network.Headers): string[] {
  return Object.entries(headers).filter(([name]) => name.toLowerCase() === 'set-cookie').flatMap(([, value]) => String(value).split('\n')).filter(Boolean);
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Bytes of a page's body per `IO.read`. Each answer carries its chunk in base64 (a third larger),
 * kept below V8's large-object size (128 KiB), so every answer's text and its JSON parse stay in
 * the young generation. The whole page in one answer (`Fetch.getResponseBody`) is a string of
 * megabytes that Chromium serializes and this process parses as one large object, which cost both
 * more than the round trips of the chunks (BENCHMARKS.md, "Thirteenth change").
 */
export const BODY_CHUNK_BYTES = 65_536;

/**
 * The body of the document paused at the Response stage, streamed: `Fetch.takeResponseBodyAsStream`,
 * then `IO.read` of BODY_CHUNK_BYTES at a time until the end, then `IO.close`. The request cannot be
 * continued afterwards; the read aborts it anyway.
 * @returns the bytes, in one buffer of their exact size (its own ArrayBuffer: the parse pool moves it)
 * @throws what Chromium answered
 */
async function responseBody(cdp: CDPSession, requestId: string): Promise<Buffer> {
  const { stream } = await cdp.send('Fetch.takeResponseBodyAsStream', { requestId });
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for (;;) {
      const { data, base64Encoded, eof } = await cdp.send('IO.read', { handle: stream, size: BODY_CHUNK_BYTES });
      const chunk = Buffer.from(data, base64Encoded ? 'base64' : 'utf8');
      chunks.push(chunk);
      length += chunk.length;
      if (eof) break;
    }
  } finally {
    void cdp.send('IO.close', { handle: stream }).catch(() => undefined);
  }
  const bytes = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(bytes, at);
  return bytes;
}

/** What the read under way on a page does with its capture session's events. */
interface CaptureHandlers {
  onPaused(event: Protocol.Fetch.RequestPausedEvent): Promise<void>;
  onExtraInfo(event: Protocol.Network.ResponseReceivedExtraInfoEvent): void;
}

/**
 * A page's capture session: its own CDP session with the Fetch domain on, opened by the page's
 * first read and kept while the page lives, so the next read of a warm page (warm-pages.ts) pays
 * no attach, frame-tree, Fetch.enable or detach round trip. `handlers` belong to the read under
 * way; between reads there are none and any request is refused.
 */
interface CaptureSession {
  cdp: CDPSession;
  mainFrameId: string;
  /** The Network domain is on (for Set-Cookie headers), from the first read that collected cookies. */
  network: boolean;
  handlers?: CaptureHandlers;
}

const captureSessions = new WeakMap<Page, Promise<CaptureSession>>();

async function openCaptureSession(page: Page): Promise<CaptureSession> {
  const cdp = await page.createCDPSession();
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const session: CaptureSession = { cdp, mainFrameId: frameTree.frame.id, network: false };
  cdp.on('Fetch.requestPaused', (event) => {
    const handled = session.handlers
      ? session.handlers.onPaused(event)
      : cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' });
    // The session dies with the page; a late failure here has nothing left to affect.
    handled.catch(() => undefined);
  });
  cdp.on('Network.responseReceivedExtraInfo', (event) => session.handlers?.onExtraInfo(event));
  await cdp.send('Fetch.enable', {
    patterns: [
      { urlPattern: '*', requestStage: 'Request' },
      { urlPattern: '*', resourceType: 'Document', requestStage: 'Response' },
    ],
  });
  return session;
}

/** The page's capture session, opened on its first read. */
function captureSessionOf(page: Page): Promise<CaptureSession> {
  let session = captureSessions.get(page);
  if (!session) {
    session = openCaptureSession(page);
    captureSessions.set(page, session);
    session.catch(() => captureSessions.delete(page));
  }
  return session;
}

/**
 * Navigates `page` to `options.url` and returns the main document's status, raw bytes and content
 * type; the navigation itself is cancelled once the bytes are taken. Errors are puppeteer's
 * (timeout, net::ERR_…, target closed); the caller classifies them.
 */
export async function capturePage(page: Page, options: CaptureOptions): Promise<CapturedDocument> {
  const session = await captureSessionOf(page);
  const { cdp, mainFrameId } = session;
  let captured: Promise<CapturedDocument> | undefined;
  // Raw Set-Cookie headers by network request id (a redirect chain shares one), and the document's id.
  const cookieHeaders = new Map<string, string[]>();
  let documentNetworkId: string | undefined;
  const withCookies = (document: CapturedDocument): CapturedDocument =>
    ({ ...document, setCookies: documentNetworkId === undefined ? [] : (cookieHeaders.get(documentNetworkId) ?? []) });

  const onPaused = async (event: Protocol.Fetch.RequestPausedEvent): Promise<void> => {
    const { requestId } = event;
    const responseStage = event.responseStatusCode !== undefined || event.responseErrorReason !== undefined;
    if (!responseStage) {
      const blocked =
        event.resourceType !== READ_RESOURCE_TYPE ||
        (options.allowedOrigin !== undefined && originOf(event.request.url) !== options.allowedOrigin);
      await (blocked
        ? cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
        : cdp.send('Fetch.continueRequest', { requestId }));
      return;
    }
    const status = event.responseStatusCode;
    const isRedirect = status !== undefined && status >= 300 && status < 400 && header(event.responseHeaders, 'location') !== undefined;
    if (!captured && status !== undefined && !isRedirect && event.frameId === mainFrameId) {
      const contentType = header(event.responseHeaders, 'content-type');
      documentNetworkId = event.networkId;
      captured = responseBody(cdp, requestId).then((bytes) => ({
        status,
        bytes,
        ...(contentType !== undefined && { contentType }),
        setCookies: [],
      }));
      // Answer only once the body is taken or failed (the failure surfaces through `captured`).
      await captured.catch(() => undefined);
      // Either way the document goes no further: the bytes are the read (an aborted navigation
      // commits nothing), and a body once streamed cannot be continued.
      await cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' });
      return;
    }
    await cdp.send('Fetch.continueRequest', { requestId });
  };

  // Network ids whose raw response headers arrived, and who waits for the document's.
  const headersSeen = new Set<string>();
  let onHeaders: (() => void) | undefined;
  const onExtraInfo = (event: Protocol.Network.ResponseReceivedExtraInfoEvent): void => {
    if (!options.collectCookies) return;
    const values = setCookiesOf(event.headers);
    if (values.length > 0) cookieHeaders.set(event.requestId, [...(cookieHeaders.get(event.requestId) ?? []), ...values]);
    headersSeen.add(event.requestId);
    onHeaders?.();
  };
  /** The captured document with its Set-Cookie headers, once the document's raw headers arrived (or waiting is pointless). */
  const capturedWithCookies = async (document: CapturedDocument): Promise<CapturedDocument> => {
    if (options.collectCookies && documentNetworkId !== undefined && !headersSeen.has(documentNetworkId)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, EXTRA_INFO_WAIT_MS);
        onHeaders = () => {
          if (!headersSeen.has(documentNetworkId!)) return;
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return withCookies(document);
  };
  const handlers: CaptureHandlers = { onPaused, onExtraInfo };
  session.handlers = handlers;
  if (options.collectCookies && !session.network) {
    // Raw headers arrive as soon as the response's headers do, about when the body is paused.
    await cdp.send('Network.enable');
    session.network = true;
  }

  let response;
  try {
    try {
      response = await page.goto(options.url, { waitUntil: 'domcontentloaded', timeout: options.timeoutMs });
    } catch (error) {
      // The document arrived and its navigation was aborted (as every captured one is), or did not
      // settle (the page closed under it): the bytes are what we read, so they count.
      if (captured) return await capturedWithCookies(await captured.catch(() => Promise.reject(error)));
      throw error;
    }
    if (captured) return await capturedWithCookies(await captured);
  } finally {
    // The page may serve a later read (warm-pages.ts): this read's handlers end with it.
    if (session.handlers === handlers) delete session.handlers;
  }
  // Not intercepted (e.g. answered from a cache or a service worker): fall back to what Chromium kept.
  if (!response) throw new Error(`navigation to ${options.url} produced no response`);
  const headers = response.headers();
  const contentType = headers['content-type'];
  return {
    status: response.status(),
    bytes: await response.content(),
    ...(contentType !== undefined && { contentType }),
    setCookies: options.collectCookies ? (headers['set-cookie']?.split('\n').filter(Boolean) ?? []) : [],
  };
}
