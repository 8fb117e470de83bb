/**
 * Building and releasing the jsdom document the field readers run on.
 *
 * jsdom 27's selector engine (@asamuzakjp/dom-selector, held as `_domSelector` on the document
 * implementation) keeps every parsed document reachable after `window.close()` once any
 * `querySelector`/`matches`/`closest` ran (~35 MB per Amazon page). `releaseDom` drops that reference
 * so memory stays flat over many parses.
 */
import { createRequire } from 'node:module';
import { JSDOM, VirtualConsole } from 'jsdom';

const require = createRequire(import.meta.url);
const idlUtils = require('jsdom/lib/jsdom/living/generated/utils.js') as { implForWrapper(w: unknown): unknown };

/** Parses HTML into a jsdom (no scripts run, console output swallowed). */
export function createDom(html: string): JSDOM {
  return new JSDOM(html, { virtualConsole: new VirtualConsole() });
}

/** Releases a jsdom: closes the window, then drops the selector engine's document reference. */
export function releaseDom(dom: JSDOM): void {
  const impl = idlUtils.implForWrapper(dom.window.document) as { _domSelector?: unknown } | null;
  try {
    dom.window.close();
  } finally {
    if (impl && '_domSelector' in impl) impl._domSelector = null;
  }
}
