/**
 * One reading interface over two kinds of tree, so the search readers run unchanged on both:
 * - the card trees of the fast path (`scan.ts`): htmlparser2 trees (domhandler's node shape), matched
 *   by css-select over the adapter below;
 * - a jsdom document of the whole page (the reference path of the differential test, and the page-kind
 *   decision for pages without cards), matched by `select.ts`.
 * Text follows the product parser's rules (`text.ts`): script/style never read, `<br>` and block
 * boundaries separate words, whitespace collapsed.
 */
import { compile, type Options } from 'css-select';
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

/** An element of an htmlparser2 tree (domhandler's node shape). */
export interface HElement {
  type: string;
  name: string;
  attribs: Record<string, string>;
  children: HNode[];
  parent: HElement | null;
}
/** A node of an htmlparser2 tree: an element, or text/comment (`data`). */
export type HNode = HElement | { type: string; data: string; parent: HElement | null };

const isTag = (n: HNode | null | undefined): n is HElement => !!n && (n.type === 'tag' || n.type === 'script' || n.type === 'style');
const hChildren = (n: HNode): HNode[] => ('children' in n ? n.children : []);
const hParent = (n: HNode): HElement | null => (isTag(n.parent) ? n.parent : null);

type Adapter<N, E extends N> = NonNullable<Options<N, E>['adapter']>;

function findAll(test: (el: HElement) => boolean, nodes: readonly HNode[], out: HElement[]): HElement[] {
  for (const n of nodes) {
    if (!isTag(n)) continue;
    if (test(n)) out.push(n);
    if (n.children.length) findAll(test, n.children, out);
  }
  return out;
}

function findOne(test: (el: HElement) => boolean, nodes: readonly HNode[]): HElement | null {
  for (const n of nodes) {
    if (!isTag(n)) continue;
    if (test(n)) return n;
    const f = n.children.length ? findOne(test, n.children) : null;
    if (f) return f;
  }
  return null;
}

/** css-select's view of htmlparser2 nodes. */
const hAdapter: Adapter<HNode, HElement> = {
  isTag,
  existsOne: (test, nodes) => findOne(test, nodes) !== null,
  getAttributeValue: (el, name) => el.attribs[name],
  getChildren: hChildren,
  getName: (el) => el.name,
  getParent: hParent,
  getSiblings: (n) => (n.parent ? n.parent.children : [n]),
  getText: (n) => (isTag(n) ? textIn(hView, n) : 'data' in n ? n.data : ''),
  hasAttrib: (el, name) => Object.hasOwn(el.attribs, name),
  removeSubsets: (nodes) => nodes.filter((n, i) => nodes.indexOf(n) === i),
  findAll: (test, nodes) => findAll(test, nodes, []),
  findOne,
};

const compiled = new Map<string, (el: HElement) => boolean>();
function testOf(selector: string): (el: HElement) => boolean {
  let t = compiled.get(selector);
  if (!t) {
    t = compile<HNode, HElement>(selector, { adapter: hAdapter });
    if (compiled.size > 500) compiled.clear();
    compiled.set(selector, t);
  }
  return t;
}

/** The view of htmlparser2 trees (the card trees of the fast path). */
export const hView: View<HElement> = {
  all: (root, s) => findAll(testOf(s), root.children, []),
  one: (root, s) => findOne(testOf(s), root.children),
  is: (el, s) => testOf(s)(el),
  closest: (el, s) => {
    const t = testOf(s);
    for (let e: HElement | null = el; e; e = hParent(e)) if (t(e)) return e;
    return null;
  },
  attr: (el, name) => el.attribs[name] ?? null,
  tag: (el) => el.name,
  parent: hParent,
  kids: (el) => {
    const out: (HElement | string)[] = [];
    for (const c of el.children) {
      if (isTag(c)) out.push(c);
      else if (c.type === 'text') out.push((c as { data: string }).data);
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

/** The text nodes of an element joined as they stand (no cleaning, no word breaks): a cheap pre-test. */
export function rawText<E>(v: View<E>, el: E): string {
  let out = '';
  const walk = (e: E): void => {
    for (const k of v.kids(e)) {
      if (typeof k === 'string') out += k;
      else if (!SKIP.has(v.tag(k))) walk(k);
    }
  };
  walk(el);
  return out;
}
