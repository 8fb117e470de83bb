/**
 * One reading interface over two kinds of tree, so the search readers run unchanged on both:
 * - the card trees of the fast path (`scan.ts`): parse5 trees (its default tree adapter), matched by
 *   css-select over the adapter below;
 * - a jsdom document of the whole page (the reference path of the differential test, and the page-kind
 *   decision for pages without cards), matched by `select.ts`.
 * Text follows the product parser's rules (`text.ts`): script/style never read, `<br>` and block
 * boundaries separate words, whitespace collapsed.
 */
import { compile, type Options } from 'css-select';
import type { DefaultTreeAdapterMap } from 'parse5';
import { INLINE_TAGS, clean } from '../text.js';
import { closest as jClosest, matches as jMatches, selectAll as jAll, selectOne as jOne } from '../select.js';

/** The operations the search readers use on a tree whose elements are `E`. */
export interface View<E> {
  all(root: E, selector: string): E[];
  one(root: E, selector: string): E | null;
  is(el: E, selector: string): boolean;
  closest(el: E, selector: string): E | null;
  attr(el: E, name: string): string | null;
  /** Lower-case tag name. */
  tag(el: E): string;
  parent(el: E): E | null;
  /** The child nodes of `el`: elements (`E`) and text (`string`), in order (comments left out). */
  kids(el: E): (E | string)[];
}

/** An element of a parse5 tree (parse5's default tree adapter). */
export type P5Element = DefaultTreeAdapterMap['element'];
type P5Node = DefaultTreeAdapterMap['node'];
type P5Parent = DefaultTreeAdapterMap['parentNode'];

const isP5Element = (n: P5Node | null | undefined): n is P5Element => !!n && 'tagName' in n;
const p5Children = (n: P5Node): P5Node[] => ('childNodes' in n ? n.childNodes : []);
const p5Parent = (n: P5Node): P5Element | null => {
  const p = ('parentNode' in n ? n.parentNode : null) as P5Parent | null;
  return isP5Element(p) ? p : null;
};

/** css-select's view of parse5 nodes. */
type Adapter<N, E extends N> = NonNullable<Options<N, E>['adapter']>;
const p5Adapter: Adapter<P5Node, P5Element> = {
  isTag: isP5Element,
  existsOne: (test, nodes) => nodes.some((n) => isP5Element(n) && (test(n) || p5Adapter.existsOne(test, p5Children(n)))),
  getAttributeValue: (el, name) => el.attrs.find((a) => a.name === name)?.value,
  getChildren: p5Children,
  getName: (el) => el.tagName,
  getParent: p5Parent,
  getSiblings: (n) => {
    const p = ('parentNode' in n ? n.parentNode : null) as P5Parent | null;
    return p ? p.childNodes : [n];
  },
  getText: (n) => textIn(p5View, isP5Element(n) ? n : null),
  hasAttrib: (el, name) => el.attrs.some((a) => a.name === name),
  removeSubsets: (nodes) => nodes.filter((n, i) => nodes.indexOf(n) === i),
  findAll: (test, nodes) => {
    const out: P5Element[] = [];
    const walk = (ns: P5Node[]): void => {
      for (const n of ns) {
        if (!isP5Element(n)) continue;
        if (test(n)) out.push(n);
        walk(n.childNodes);
      }
    };
    walk(nodes);
    return out;
  },
  findOne: (test, nodes) => {
    for (const n of nodes) {
      if (!isP5Element(n)) continue;
      if (test(n)) return n;
      const f = p5Adapter.findOne(test, n.childNodes);
      if (f) return f;
    }
    return null;
  },
};

const compiled = new Map<string, (el: P5Element) => boolean>();
function testOf(selector: string): (el: P5Element) => boolean {
  let t = compiled.get(selector);
  if (!t) {
    t = compile<P5Node, P5Element>(selector, { adapter: p5Adapter });
    if (compiled.size > 500) compiled.clear();
    compiled.set(selector, t);
  }
  return t;
}

/** The view of parse5 trees (the card trees of the fast path). */
export const p5View: View<P5Element> = {
  all: (root, s) => p5Adapter.findAll(testOf(s), root.childNodes),
  one: (root, s) => p5Adapter.findOne(testOf(s), root.childNodes),
  is: (el, s) => testOf(s)(el),
  closest: (el, s) => {
    const t = testOf(s);
    for (let e: P5Element | null = el; e; e = p5Parent(e)) if (t(e)) return e;
    return null;
  },
  attr: (el, name) => el.attrs.find((a) => a.name === name)?.value ?? null,
  tag: (el) => el.tagName,
  parent: p5Parent,
  kids: (el) => {
    const out: (P5Element | string)[] = [];
    for (const c of el.childNodes) {
      if (c.nodeName === '#text') out.push((c as DefaultTreeAdapterMap['textNode']).value);
      else if (isP5Element(c)) out.push(c);
    }
    return out;
  },
};

/** The view of jsdom documents (`select.ts`). */
export const jsdomView: View<Element> = {
  all: (root, s) => jAll(root, s),
  one: (root, s) => jOne(root, s),
  is: (el, s) => jMatches(el, s),
  closest: (el, s) => jClosest(el, s),
  attr: (el, name) => el.getAttribute(name),
  tag: (el) => el.localName,
  parent: (el) => el.parentElement,
  kids: (el) => {
    const out: (Element | string)[] = [];
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out.push(c.nodeValue ?? '');
      else if (c.nodeType === 1) out.push(c as Element);
    }
    return out;
  },
};

const SKIP = new Set(['script', 'style', 'noscript', 'template']);

/**
 * The visual lines of an element: text split at `<br>` and block boundaries, each line cleaned, empty
 * lines dropped. `skip` leaves elements (and what they hold) out.
 */
export function linesOf<E>(v: View<E>, el: E, skip?: (e: E) => boolean): string[] {
  const lines: string[] = [];
  let cur = '';
  const flush = (): void => {
    const t = clean(cur);
    if (t) lines.push(t);
    cur = '';
  };
  const walk = (e: E): void => {
    for (const k of v.kids(e)) {
      if (typeof k === 'string') {
        cur += k;
        continue;
      }
      const tag = v.tag(k);
      if (SKIP.has(tag) || skip?.(k)) continue;
      if (tag === 'br') {
        flush();
        continue;
      }
      const block = !INLINE_TAGS.has(tag.toUpperCase());
      if (block) flush();
      walk(k);
      if (block) flush();
    }
  };
  walk(el);
  flush();
  return lines;
}

/** Cleaned text of an element (block boundaries and `<br>` separate words); `skip` leaves elements out. */
export function textIn<E>(v: View<E>, el: E | null | undefined, skip?: (e: E) => boolean): string {
  if (el === null || el === undefined) return '';
  const out: string[] = [];
  const walk = (e: E): void => {
    for (const k of v.kids(e)) {
      if (typeof k === 'string') {
        out.push(k);
        continue;
      }
      const tag = v.tag(k);
      if (SKIP.has(tag) || skip?.(k)) continue;
      if (tag === 'br') {
        out.push(' ');
        continue;
      }
      const block = !INLINE_TAGS.has(tag.toUpperCase());
      if (block) out.push(' ');
      walk(k);
      if (block) out.push(' ');
    }
  };
  walk(el);
  return clean(out.join(''));
}
