/**
 * Fragment document: the few parts of a product page the field readers look at, cut out of the raw
 * HTML with one tokenizer pass (htmlparser2's `Tokenizer`), so that jsdom builds a document of a few
 * kilobytes instead of a megabyte page.
 *
 * Each part is kept with its balanced outer HTML (from its start tag to where the HTML tree builder ends
 * it) and the start tags of all its ancestors, in page order. The result is the page's own tree with
 * every subtree that holds no part removed: ids, classes and nesting of what is kept, and the ancestors
 * `closest(...)` and descendant selectors look at, are those of the full page, and every element a
 * document-wide query of a reader can match is kept, so the readers return what they return on the full
 * page.
 *
 * What is kept (each reader module declares its parts as `PageParts`; `index.ts` passes them all):
 * - elements whose id is listed, or starts with a listed prefix, or that carry a listed class: in full;
 * - elements read only for their presence and position, or for some parts inside them (the core price
 *   containers, the inline twister rows): as empty elements holding the parts kept inside them;
 * - what readers find by text or position (rank labels, the page's ASIN, legacy byline and details
 *   blocks): see `fragment-scanner.ts`.
 *
 * The modules, in the order the pass runs:
 * - `page-parts.ts`: the parts each reader declares, compiled into rules;
 * - `fragment-scanner.ts`: tokenizer callbacks and the rules that mark elements as kept;
 * - `tree-construction.ts`, `open-elements.ts`, `tag-categories.ts`: the HTML tree builder's model of
 *   where each element starts and ends;
 * - `fragment-assembly.ts`: the document built from the kept elements.
 * Where the page does something the tree model does not follow around a kept part (`exact: false`), the
 * caller parses the whole page instead.
 */
import { FastTokenizer } from './fast-tokenizer.js';
import { assembleFragments } from './fragment-assembly.js';
import { FragmentScanner } from './fragment-scanner.js';
import { compilePageParts, type PageParts } from './page-parts.js';

/** The fragment document of a page. */
export interface Fragments {
  /** The assembled document (doctype, kept parts and their ancestors' tags), for jsdom. */
  html: string;
  /** True when a title element (`PageParts` of the page kind) is part of the document. */
  hasTitle: boolean;
  /** False when the page holds markup this model does not follow; parse the whole page then. */
  exact: boolean;
  /** Why `exact` is false (diagnostics). */
  inexact: string | null;
  /** The kept parts, in page order: `[start, end)` in the page, tag name, id (diagnostics and tests). */
  parts: { start: number; end: number; tag: string; id: string }[];
}

/**
 * Cuts the parts the readers need out of a page (see the module comment).
 * @param html the decoded page
 * @param parts the containers of every reader
 * @param title the title elements (page kind)
 * @param details the product-details containers
 */
export function extractFragments(html: string, parts: readonly PageParts[], title: PageParts, details: PageParts): Fragments {
  const scanner = new FragmentScanner(html, compilePageParts(parts, title, details));
  const tokenizer = new FastTokenizer({ decodeEntities: false }, scanner);
  tokenizer.write(html);
  tokenizer.end();
  const regions = scanner.regions();
  const assembled = scanner.hasTitle ? assembleFragments(html, scanner.doctype, regions, scanner.styles) : null;
  const inexact = scanner.inexact ?? assembled?.inexact ?? null;
  const kept = regions.map((e) => ({ start: e.start, end: e.end, tag: e.name, id: e.id }));
  return { html: assembled?.html ?? '', hasTitle: scanner.hasTitle, exact: inexact === null, inexact, parts: kept };
}
