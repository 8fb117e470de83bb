/**
 * Selector matching for the field readers: `querySelector`, `querySelectorAll`, `matches` and `closest`
 * with the DOM's results, done by css-select (the selector engine of cheerio) over the jsdom nodes.
 *
 * jsdom's own engine (@asamuzakjp/dom-selector) parses and plans each call against the document; the
 * readers make about a hundred small calls per page, and that planning was most of their time.
 * css-select compiles a selector once into a test function, cached here by selector and document mode,
 * and the walks below visit elements only. Same semantics as the DOM for what the readers write (type,
 * class, id and attribute selectors, lists, descendant and child combinators, `:scope`): class and id
 * selectors match any ASCII case in a quirks-mode document, matching is against the element's whole
 * ancestry (not only inside the root), results come in tree order. `test/unit/parser.select.test.ts`
 * compares every reader selector with jsdom's engine on every element of every saved page's documents.
 */
import { compile, type Options } from 'css-select';

type Adapter = NonNullable<Options<Node, Element>['adapter']>;

type Test = (el: Element) => boolean;

/** Elements of `roots` and their descendants, in tree order, that pass `test` (all of them, or the first). */
function walk(test: Test, roots: ArrayLike<Node>, first: boolean): Element[] {
  const out: Element[] = [];
  const stack: Element[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    const r = roots[i]!;
    if (r.nodeType === 1) stack.push(r as Element);
  }
  while (stack.length) {
    const el = stack.pop()!;
    if (test(el)) {
      out.push(el);
      if (first) return out;
    }
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  return out;
}

const children = (n: Node): Node[] => Array.from(n.childNodes);

/** css-select's view of jsdom nodes (public DOM APIs only). */
const adapter: Adapter = {
  isTag: (n): n is Element => n.nodeType === 1,
  existsOne: (test, nodes) => walk(test, nodes, true).length > 0,
  getAttributeValue: (el, name) => el.getAttribute(name) ?? undefined,
  getChildren: children,
  getName: (el) => el.localName,
  getParent: (el) => el.parentNode,
  getSiblings: (n) => (n.parentNode ? children(n.parentNode) : [n]),
  prevElementSibling: (n) => (n as Element).previousElementSibling ?? null,
  getText: (n) => n.textContent ?? '',
  hasAttrib: (el, name) => el.hasAttribute(name),
  removeSubsets: (nodes) => nodes.filter((n, i) => nodes.indexOf(n) === i && !nodes.some((o) => o !== n && o.contains(n))),
  findAll: (test, nodes) => walk(test, nodes, false),
  findOne: (test, nodes) => walk(test, nodes, true)[0] ?? null,
};

/**
 * Compiled selectors by mode (quirks or not) and selector text; `:scope` selectors are compiled per root.
 * A few selectors are built from page data (a variation dimension's row id): the cache is emptied when
 * it grows past `CACHE_LIMIT`, so a long-running worker does not keep every page's.
 */
const compiled = [new Map<string, Test>(), new Map<string, Test>()];
const CACHE_LIMIT = 1_000;

type Root = Document | Element | DocumentFragment;

function isQuirks(n: Node): boolean {
  return (n.ownerDocument ?? (n as Document)).compatMode === 'BackCompat';
}

function testFor(selector: string, context: Root): Test {
  const quirksMode = isQuirks(context);
  if (selector.includes(':scope')) return compile<Node, Element>(selector, { adapter, quirksMode }, context);
  const cache = compiled[quirksMode ? 1 : 0]!;
  let t = cache.get(selector);
  if (!t) {
    t = compile<Node, Element>(selector, { adapter, quirksMode });
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(selector, t);
  }
  return t;
}

/** `root.querySelectorAll(selector)`, as an array. */
export function selectAll(root: Root, selector: string): Element[] {
  return walk(testFor(selector, root), root.children, false);
}

/** `root.querySelector(selector)`; null also for a missing root. */
export function selectOne(root: Root | null | undefined, selector: string): Element | null {
  if (!root) return null;
  return walk(testFor(selector, root), root.children, true)[0] ?? null;
}

/** `el.matches(selector)`. */
export function matches(el: Element, selector: string): boolean {
  return testFor(selector, el)(el);
}

/** `el.closest(selector)`; null also for a missing element. */
export function closest(el: Element | null | undefined, selector: string): Element | null {
  if (!el) return null;
  const test = testFor(selector, el);
  for (let e: Element | null = el; e; e = e.parentElement) if (test(e)) return e;
  return null;
}
