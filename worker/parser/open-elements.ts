/**
 * The element model of the fragment scanner and the tree builder's two running lists over it (WHATWG
 * HTML, "Parsing HTML documents"): the stack of open elements (with per-name counts, so scope checks
 * for a name that is not open cost nothing) and the list of active formatting elements.
 *
 * An element is known by its position in the page (`start`, `tagEnd`, `end`) and the few attributes the
 * kept-part rules look at; nothing else of it is stored. `tree-construction.ts` decides what the tokens
 * do to these lists; `fragment-scanner.ts` decides which elements are kept.
 */
import { COUNTED, FORMATTING, SPECIAL } from './tag-categories.js';

/** One element of the page as the tree builder would build it (positions are indexes in the page). */
export interface ScannedElement {
  name: string;
  /** Index of `<` of the start tag. */
  start: number;
  /** Index after `>` of the start tag. */
  tagEnd: number;
  /** Index after the element's end (its end tag, or where it was closed); -1 while open. */
  end: number;
  parent: ScannedElement | null;
  id: string;
  cls: string;
  attrName: string;
  rel: string;
  /** 1: kept in full; 2: kept only when the page has no details container (legacy bucket); 3: kept empty. */
  keep: 0 | 1 | 2 | 3;
  /** Has one of the `scoped.within` ids: `scoped.classes` inside it are kept. */
  scope: boolean;
  /** End tags that close what was left open inside a kept element that ended without its end tag. */
  closers: string;
  /** A Best Sellers Rank label candidate (`th`, `td.label`, `b`, `.a-text-bold`). */
  candidate: boolean;
  /** Text collected while a candidate is open. */
  text: string[] | null;
  /** A sibling after the legacy `productDetails` anchor; `hit`: it holds a `.bucket .content`. */
  sibling: boolean;
  hit: boolean;
  /** Has the class `bucket` (legacy details), while open. */
  bucket: boolean;
  /**
   * Its content straddles a misnested formatting element that the tree builder re-arranged (1), or
   * what opens inside it is re-parented in a way this model does not follow (2): keeping it is inexact.
   */
  taint: 0 | 1 | 2;
}

/** A new element whose start tag begins at `lt` (`<`), under `parent`. */
export function newElement(name: string, lt: number, parent: ScannedElement | null): ScannedElement {
  return {
    name, start: lt, tagEnd: -1, end: -1, parent, id: '', cls: '', attrName: '', rel: '',
    keep: 0, scope: false, closers: '', candidate: false, text: null, sibling: false, hit: false, bucket: false, taint: 0,
  };
}

type El = ScannedElement;

/**
 * The stack of open elements and the list of active formatting elements, with the operations that pop,
 * remove and look up elements. Subclasses say what closing an element means (`close`) and whether
 * removing a misnested element disturbs a kept part (`misnested`).
 */
export abstract class OpenElements {
  protected readonly stack: El[] = [];
  /** Formatting elements the tree builder would re-open (null: a marker), see `reconstructs`. */
  protected readonly active: (El | null)[] = [];
  /** How many elements of each `COUNTED` name are open (spares walking the stack for names that are not). */
  private readonly open = new Map<string, number>();
  /** Why the fragment document cannot stand for the page (the first reason found), or null. */
  inexact: string | null = null;

  /**
   * An element leaves the stack, ending at `end`; `closers`: how many elements of the current pop, itself
   * last, it left open (0 when its own end tag closed it): `closersOf(closers)` are their end tags.
   */
  protected abstract close(el: El, end: number, closers: number): void;

  /** Names of the elements the current `popTo` has popped so far, in order. */
  private readonly popped: string[] = [];

  /** The end tags of the first `n` elements the current `popTo` popped (see `close`). */
  protected closersOf(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += `</${this.popped[i]!}>`;
    return out;
  }

  /**
   * A misnested formatting element at stack `index` was removed while what opened inside it stays open:
   * marks the fragment document inexact when a kept part is inside it.
   */
  protected abstract misnested(el: El, index: number): void;

  /** The current node (the most recently opened element still open). */
  protected top(): El | null {
    return this.stack.length ? this.stack[this.stack.length - 1]! : null;
  }

  protected push(el: El): void {
    this.stack.push(el);
    if (COUNTED.has(el.name)) this.open.set(el.name, (this.open.get(el.name) ?? 0) + 1);
  }

  /** False when no element `name` is open (true when open, or when `name` is not counted). */
  protected isOpen(name: string): boolean {
    return !COUNTED.has(name) || (this.open.get(name) ?? 0) > 0;
  }

  /** Counts an element out of the stack. */
  protected dropped(el: El): void {
    if (COUNTED.has(el.name)) this.open.set(el.name, this.open.get(el.name)! - 1);
  }

  /** Index of the topmost open `name` before a scope boundary, or -1. */
  protected inScope(name: string, boundary: ReadonlySet<string>): number {
    if (!this.isOpen(name)) return -1;
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const n = this.stack[i]!.name;
      if (n === name) return i;
      if (boundary.has(n)) return -1;
    }
    return -1;
  }

  /** Index of the topmost open element with one of `names`, at or below `from`, or -1. */
  protected indexOf(names: ReadonlySet<string>, from = this.stack.length - 1): number {
    for (let i = from; i >= 0; i--) if (names.has(this.stack[i]!.name)) return i;
    return -1;
  }

  /** Closes the elements above `index` (not it): they end at `pos` without an end tag. */
  protected popAbove(index: number, pos: number): void {
    if (index + 1 < this.stack.length) this.popTo(index + 1, pos, -1);
  }

  /**
   * Pops the stack down to `index` (inclusive). The element at `index` ends at `ownEnd` when its own end
   * tag closes it (`ownEnd >= 0`), every other one at `pos`.
   */
  protected popTo(index: number, pos: number, ownEnd: number): void {
    const popped = this.popped;
    popped.length = 0;
    while (this.stack.length > index) {
      const el = this.stack.pop()!;
      this.dropped(el);
      const explicit = ownEnd >= 0 && this.stack.length === index;
      popped.push(el.name);
      this.close(el, explicit ? ownEnd : pos, explicit ? 0 : popped.length);
      if (explicit && FORMATTING.has(el.name)) this.forget(el);
    }
  }

  /** Drops a formatting element from the active list (its end tag was seen). */
  protected forget(el: El): void {
    const i = this.active.lastIndexOf(el);
    if (i >= 0) this.active.splice(i, 1);
  }

  /**
   * Text or an inline start tag at `pos`: the tree builder re-opens formatting elements that were closed
   * without their end tag (an unclosed `<b>` wraps what follows). This model does not rebuild them.
   */
  protected reconstructs(pos: number): void {
    for (let i = this.active.length - 1; i >= 0; i--) {
      const a = this.active[i];
      if (!a) return;
      if (a.end >= 0) {
        this.inexact ??= `unclosed <${a.name}> at ${a.start} re-opened at ${pos}`;
        return;
      }
    }
  }

  /**
   * Removes one element from the stack while elements opened inside it stay open (a misnested formatting
   * element: adoption agency; a `</form>` with open children). What opens later inside those elements is
   * placed as this model says; what they held before, and they themselves, are not kept exactly.
   */
  protected removeAt(index: number, end: number, adopted: boolean): void {
    const [el] = this.stack.splice(index, 1);
    if (!el) return;
    this.dropped(el);
    if (adopted) {
      // the first block above moves out to the element's parent; elements in between are re-created
      const block = this.stack.findIndex((e, i) => i >= index && SPECIAL.has(e.name));
      for (let i = index; i < this.stack.length; i++) {
        const e = this.stack[i]!;
        const t = i < block ? 2 : i === block && block > index ? 2 : 1;
        if (t > e.taint) e.taint = t;
      }
      if (block === index) this.stack[index]!.parent = el.parent;
      this.misnested(el, index);
    }
    this.close(el, end, 0);
    if (FORMATTING.has(el.name)) this.forget(el);
  }
}
