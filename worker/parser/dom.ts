/**
 * Building and releasing the jsdom documents the field readers run on.
 *
 * Documents are made by the `DOMParser` of a factory window (`new JSDOM('')`) that is reused for
 * `WINDOW_USES` documents, then closed and replaced. A new window per page would cost more than
 * parsing a fragment document (jsdom installs every DOM interface per window), and jsdom 27 keeps each
 * window alive until the event loop turns: `new JSDOM(...)` and `window.close()` both queue the
 * document's load steps as promise jobs that hold the document and its window, so a synchronous batch
 * of parses would hold every window it made. A `DOMParser` document is created complete: it queues
 * nothing. Its tree is built by `dom-build.ts` from parse5's tree (same parse5 tree builder as
 * `new JSDOM(html)`, scripting disabled: `<noscript>` content is markup; `about:blank` URL), each subtree
 * before it is attached; markup that build leaves to jsdom (`<template>`) is parsed by the `DOMParser`.
 *
 * Two references tie a document to the factory window and are cut on release:
 * - every element with an `id` (or a `name`, on some tags) is registered in the window's named-property
 *   table while attached: a built document's such elements are taken out of it (`forgetNamed`), a document
 *   jsdom parsed has its children removed (`replaceChildren`);
 * - jsdom's selector engine (@asamuzakjp/dom-selector) registers focus/keyboard/mouse listeners on the
 *   window for every document it serves, when the document is created: the factory window records the
 *   listeners added while a document is created, and they are removed with `removeEventListener` (the
 *   factory window has no listeners of its own).
 */
import './parse5-native.js';
import { JSDOM, VirtualConsole, type DOMWindow } from 'jsdom';
import { buildInto, forgetNamed } from './dom-build.js';
import { seedIdIndex } from './query.js';

/** Documents made by one factory window before it is closed and replaced. */
const WINDOW_USES = 200;

let factory: DOMWindow | null = null;
let uses = 0;

/** A listener added to a factory window. */
interface AddedListener {
  type: string;
  listener: EventListenerOrEventListenerObject;
  options: boolean | AddEventListenerOptions | undefined;
}

/** Where the listeners added to a factory window go while a document is being created (null: nowhere). */
let recording: AddedListener[] | null = null;
/** The window each live document was made by, and the listeners its creation added there. */
const registrations = new WeakMap<Document, { win: DOMWindow; added: AddedListener[]; named: readonly unknown[] | null }>();

function newFactoryWindow(): DOMWindow {
  const win = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;
  const add = win.addEventListener.bind(win);
  win.addEventListener = (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void => {
    recording?.push({ type, listener, options });
    add(type, listener, options);
  };
  return win;
}

function factoryWindow(): DOMWindow {
  if (!factory || uses >= WINDOW_USES) {
    factory?.close();
    factory = newFactoryWindow();
    uses = 0;
  }
  uses++;
  return factory;
}

/** Parses HTML into a jsdom document (no scripts run, nothing loaded). Release it with `releaseDom`. */
export function createDom(html: string): Document {
  const win = factoryWindow();
  const added: AddedListener[] = [];
  recording = added;
  let doc: Document;
  let named: readonly unknown[] | null = null;
  try {
    const parser = new win.DOMParser();
    doc = parser.parseFromString('', 'text/html');
    const built = buildInto(doc, html);
    if (built) {
      seedIdIndex(doc, built.elements, built.ids);
      named = built.named;
    } else {
      doc = parser.parseFromString(html, 'text/html');
    }
  } finally {
    recording = null;
  }
  registrations.set(doc, { win, added, named });
  return doc;
}

/** Releases a document from `createDom`: removes what ties it to the factory window (see the module comment). */
export function releaseDom(doc: Document): void {
  try {
    const named = registrations.get(doc)?.named;
    if (named) forgetNamed(named);
    else doc.replaceChildren();
  } finally {
    const reg = registrations.get(doc);
    registrations.delete(doc);
    if (reg) for (const l of reg.added) reg.win.removeEventListener(l.type, l.listener, l.options);
  }
}

/** Runs `fn` on a document of `html` (`createDom`) and releases the document afterwards, whatever `fn` does. */
export function withDom<T>(html: string, fn: (doc: Document) => T): T {
  const doc = createDom(html);
  try {
    return fn(doc);
  } finally {
    releaseDom(doc);
  }
}
