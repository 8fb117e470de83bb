/**
 * `querySelector` / `querySelectorAll` over a selector list, with the same results, for the id-anchored
 * lists the readers use. jsdom's selector engine is slow on lists and on ids a document lacks (it walks
 * every node); here each selector of the list is run on its own and the results are merged in tree order:
 * - a selector that names an id (`#x` anywhere in it) the document has no element for cannot match and
 *   is skipped;
 * - a bare `#x` or `[id^="x"]` is answered from an index of the document's ids (one walk over its
 *   elements), and `#x .y` (one compound after the id) by querying below the indexed `#x` elements;
 * - any other selector is tested on the indexed elements, in tree order (`matches`, `select.ts`).
 * The index is built once per document and assumes the document is not changed while it is read.
 */
import { matches, selectAll, selectOne } from './select.js';

interface IdIndex {
  /** Every element, in tree order. */
  elements: readonly Element[];
  /** Tree order of every element. */
  order: Map<Element, number>;
  /** Elements by id, in tree order. */
  byId: Map<string, Element[]>;
}

const indexes = new WeakMap<Document, IdIndex>();
const SHOW_ELEMENT = 1;
/** An id selector's name: everything up to the next CSS delimiter. */
const NAME = String.raw`[^\s.#[\]:>+~,()'"\\*=|^$]+`;
const BARE_ID = new RegExp(`^#(${NAME})$`);
const ID_PREFIX = /^\[id\^="([^"\\]+)"\]$/;
const ID_TOKEN = new RegExp(`#(${NAME})`, 'g');
/** `#id .compound`: an id, a descendant combinator, then one compound selector without combinators or lists. */
const ID_THEN_COMPOUND = new RegExp(`^#(${NAME})\\s+([^\\s>+~,()]+)$`);

/** Ids a selector needs to exist to match anything (none when it holds a negation). */
function requiredIds(selector: string): string[] {
  if (selector.includes(':not(') || selector.includes(':is(') || selector.includes(':where(')) return [];
  const outsideAttributes = selector.replace(/\[[^\]]*\]/g, '');
  return [...outsideAttributes.matchAll(ID_TOKEN)].map((m) => m[1]!);
}

function indexOf(doc: Document): IdIndex {
  let ix = indexes.get(doc);
  if (ix) return ix;
  const elements: Element[] = [];
  ix = { elements, order: new Map(), byId: new Map() };
  const walker = doc.createTreeWalker(doc, SHOW_ELEMENT);
  let i = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n as Element;
    elements.push(el);
    ix.order.set(el, i++);
    const id = el.id;
    if (!id) continue;
    const list = ix.byId.get(id);
    if (list) list.push(el);
    else ix.byId.set(id, [el]);
  }
  indexes.set(doc, ix);
  return ix;
}

/**
 * Gives a document its index from the elements its builder made (`dom-build.ts`), instead of a walk.
 * @param elements every element of the document, in tree order
 * @param ids each element's `id` attribute (empty: none)
 */
export function seedIdIndex(doc: Document, elements: readonly Element[], ids: readonly string[]): void {
  const ix: IdIndex = { elements, order: new Map(), byId: new Map() };
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i]!;
    ix.order.set(el, i);
    const id = ids[i]!;
    if (!id) continue;
    const list = ix.byId.get(id);
    if (list) list.push(el);
    else ix.byId.set(id, [el]);
  }
  indexes.set(doc, ix);
}

/** Elements whose id starts with `prefix`, in tree order (`querySelectorAll('[id^="prefix"]')`). */
function withIdPrefix(ix: IdIndex, prefix: string): Element[] {
  const out: Element[] = [];
  for (const [id, els] of ix.byId) if (id.startsWith(prefix)) out.push(...els);
  return out.sort((a, b) => ix.order.get(a)! - ix.order.get(b)!);
}

/** The matches of each selector that can match, or null for a selector that cannot. */
function matchesOf(doc: Document, ix: IdIndex, selector: string): readonly Element[] | null {
  const bare = BARE_ID.exec(selector);
  if (bare) return ix.byId.get(bare[1]!) ?? null;
  const prefix = ID_PREFIX.exec(selector);
  if (prefix) return withIdPrefix(ix, prefix[1]!);
  const scoped = ID_THEN_COMPOUND.exec(selector);
  if (scoped) {
    // Descendants of each element with the id that match the compound: the same set as the document-wide query.
    const roots = ix.byId.get(scoped[1]!);
    if (!roots) return null;
    const found = roots.flatMap((r) => [...selectAll(r, scoped[2]!)]);
    return roots.length === 1 ? found : [...new Set(found)].sort((a, b) => ix.order.get(a)! - ix.order.get(b)!);
  }
  if (requiredIds(selector).some((id) => !ix.byId.has(id))) return null;
  return selector.includes(':scope') ? selectAll(doc, selector) : ix.elements.filter((el) => matches(el, selector));
}

/** Same elements, in the same order, as `doc.querySelectorAll(selectors.join(', '))`. */
export function queryAll(doc: Document, selectors: readonly string[]): Element[] {
  const ix = indexOf(doc);
  const lists = selectors.map((s) => matchesOf(doc, ix, s)).filter((l): l is readonly Element[] => !!l && l.length > 0);
  if (lists.length === 0) return [];
  if (lists.length === 1) return [...lists[0]!];
  const all = [...new Set(lists.flat())];
  return all.sort((a, b) => ix.order.get(a)! - ix.order.get(b)!);
}

/** Same element as `doc.querySelector(selectors.join(', '))`. */
export function query(doc: Document, selectors: readonly string[]): Element | null {
  const ix = indexOf(doc);
  let best: Element | null = null;
  for (const s of selectors) {
    const bare = BARE_ID.exec(s);
    let el: Element | null;
    const prefix = ID_PREFIX.exec(s);
    if (bare) el = ix.byId.get(bare[1]!)?.[0] ?? null;
    else if (prefix) el = withIdPrefix(ix, prefix[1]!)[0] ?? null;
    else if (ID_THEN_COMPOUND.test(s)) el = matchesOf(doc, ix, s)?.[0] ?? null;
    else if (requiredIds(s).some((id) => !ix.byId.has(id))) el = null;
    else el = s.includes(':scope') ? selectOne(doc, s) : (ix.elements.find((e) => matches(e, s)) ?? null);
    if (el && (!best || ix.order.get(el)! < ix.order.get(best)!)) best = el;
  }
  return best;
}
