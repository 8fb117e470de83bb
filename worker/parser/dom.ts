/**
 * Building and releasing the jsdom documents the field readers run on.
 *
 * Documents are made by the `DOMParser` of a factory window (`new JSDOM('')`) that is reused for
 * `WINDOW_USES` documents, then closed and replaced. A new window per page would cost more than
 * parsing a fragment document (jsdom installs every DOM interface per window), and jsdom 27 keeps each
 * window alive until the event loop turns: `new JSDOM(...)` and `window.close()` both queue the
 * document's load steps as promise jobs that hold the document and its window, so a synchronous batch
 * of parses would hold every window it made. A `DOMParser` document is created complete: it queues
 * nothing. It parses like `new JSDOM(html)`: same parse5 tree builder, scripting disabled (`<noscript>`
 * content is markup), `about:blank` URL.
 *
 * Two jsdom/selector-engine references tie a document to the factory window and are cut on release:
 * - every element with an `id` (or a `name`, on some tags) is registered in the window's named-property
 *   table while attached: the document's children are removed;
 * - the selector engine (@asamuzakjp/dom-selector, `_domSelector` on the document implementation)
 *   registers focus/keyboard/mouse listeners on the window for every document: they are dropped as
 *   `window.close()` drops them (the factory window has no listeners of its own), and so is the engine.
 */
import './parse5-native.js';
import { createRequire } from 'node:module';
import { JSDOM, VirtualConsole, type DOMWindow } from 'jsdom';

const require = createRequire(import.meta.url);
const idlUtils = require('jsdom/lib/jsdom/living/generated/utils.js') as { implForWrapper(w: unknown): unknown };

/** Documents made by one factory window before it is closed and replaced. */
export const WINDOW_USES = 200;

let factory: DOMWindow | null = null;
let uses = 0;

function factoryWindow(): DOMWindow {
  if (!factory || uses >= WINDOW_USES) {
    factory?.close();
    factory = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;
    uses = 0;
  }
  uses++;
  return factory;
}

/** Parses HTML into a jsdom document (no scripts run, nothing loaded). Release it with `releaseDom`. */
export function createDom(html: string): Document {
  const win = factoryWindow();
  return new win.DOMParser().parseFromString(html, 'text/html');
}

/** Releases a document from `createDom`: detaches its tree and drops what ties it to the factory window. */
export function releaseDom(doc: Document): void {
  const impl = idlUtils.implForWrapper(doc) as { _domSelector?: unknown; _globalObject?: unknown } | null;
  try {
    doc.replaceChildren();
  } finally {
    if (impl && '_domSelector' in impl) impl._domSelector = null;
    const winImpl = impl?._globalObject ? (idlUtils.implForWrapper(impl._globalObject) as { _eventListeners?: unknown } | null) : null;
    if (winImpl) winImpl._eventListeners = Object.create(null);
  }
}

/** Closes the factory window (tests, shutdown); the next `createDom` makes a new one. */
export function closeDomFactory(): void {
  factory?.close();
  factory = null;
  uses = 0;
}
