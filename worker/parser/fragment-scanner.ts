/**
 * The fragment scanner: the tokenizer callbacks (htmlparser2's `Tokenizer`) that feed the tree builder
 * (`tree-construction.ts`) and the rules that decide which elements of the page are kept for the
 * fragment document (`fragments.ts` lists them). Beside the parts the readers declare (`page-parts.ts`),
 * a few readers find their element by text or position, and the scanner keeps what they would reach:
 * - Best Sellers Rank labels found by text (`th`, `td.label`, `b`, `.a-text-bold` whose text names the
 *   rank, as `findBsrBlock` searches): the row/item holding them;
 * - `input#ASIN`, `input[name=ASIN|ASIN.0]`, `link[rel=canonical]` (the page's ASIN);
 * - the `.buying` block (or bucket `.content`) around an older `#btAsinTitle` (byline);
 * - elements a reader searches for phrases (`textIds`), when their markup holds one;
 * - when the page has no product-details container: the `productDetails` anchor and the first of its
 *   following siblings that holds a legacy `.bucket .content` (the siblings before it are passed over by
 *   `legacyBucket` without being read).
 *
 * Entities are decoded only where the scanner reads text or attribute values (the tokenizer runs with
 * `decodeEntities: false`).
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';
import type { QuoteType, TokenizerCallbacks } from 'htmlparser2';
import { isBsrLabel } from './bsr.js';
import { newElement, type ScannedElement as El } from './open-elements.js';
import { READ_DATA_ATTRIBUTES, hasClass, type PartRules } from './page-parts.js';
import { isQuirksDoctype } from './tag-categories.js';
import { TreeConstruction } from './tree-construction.js';

const ATTR_ID = 1;
const ATTR_CLASS = 2;
const ATTR_NAME = 3;
const ATTR_REL = 4;
const ATTR_STYLE = 5;
/** A `data-*` attribute no reader reads (left out like `style`). */
const ATTR_UNREAD = 6;
/** What each kind's name is (for `data-*`: how it starts), lower-case. */
const ATTR_NAMES = ['', 'id', 'class', 'name', 'rel', 'style', 'data-'];
/** The lengths of the read `data-*` names (any other length is an unread one, without a look at its name). */
const READ_DATA_LENGTHS: ReadonlySet<number> = new Set([...READ_DATA_ATTRIBUTES].map((n) => n.length));

/** One pass over the page: the element tree as the tree builder would build it, and the kept parts. */
export class FragmentScanner extends TreeConstruction implements TokenizerCallbacks {
  private pending: El | null = null;
  private pendingIgnored = false;
  private attrKind = 0;
  private attrValueStart = -1;
  private attrValueEnd = -1;
  private attrStart = 0;
  /** Open Best Sellers Rank label candidates (collecting text). */
  private sinks = 0;
  private sawElement = false;
  /** The page's doctype (`<!DOCTYPE ...>`), or empty. */
  doctype = '';
  /** Legacy details: the parent whose children after the anchor are kept (until a `.bucket .content`). */
  private legacyParent: El | null = null;
  private legacyDone = false;
  private bucketDepth = 0;
  /** Open elements with a `scoped.within` id. */
  private scopeDepth = 0;
  /** Kept elements, in the order they closed. */
  private readonly kept: El[] = [];
  /** `[start, end)` of every `style` attribute and unread `data-*` attribute, in page order (left out of the kept markup). */
  readonly styles: number[] = [];
  /** A title element (`PageParts` of the page kind) was seen. */
  hasTitle = false;
  /** A product-details container was seen (the legacy details block is then not read). */
  hasDetails = false;

  constructor(
    private readonly html: string,
    private readonly rules: PartRules,
  ) {
    super();
  }

  /** The kept elements not inside a part kept in full, in page order. */
  regions(): El[] {
    const withLegacy = !this.hasDetails;
    const sorted = this.kept.filter((e) => e.keep !== 2 || withLegacy).sort((a, b) => a.start - b.start);
    const out: El[] = [];
    let lastEnd = -1;
    for (const r of sorted) {
      if (r.start < lastEnd) continue; // inside a part already kept in full
      if (r.keep !== 3) lastEnd = r.end; // an empty part holds the parts inside it
      out.push(r);
    }
    return out;
  }

  // ---- tokenizer callbacks ----

  onopentagname(start: number, endIndex: number): void {
    const name = this.html.slice(start, endIndex).toLowerCase();
    const lt = start - 1;
    if (!this.sawElement) {
      this.sawElement = true;
      if (!this.doctype) this.quirks = true;
    }
    this.pendingIgnored = !this.beforeStartTag(name, lt);
    this.pending = newElement(name, lt, this.top());
  }

  onattribname(start: number, endIndex: number): void {
    const len = endIndex - start;
    const c = this.html.charCodeAt(start) | 0x20;
    this.attrKind = 0;
    const kind =
      len === 2 && c === 105 /* i */ ? ATTR_ID
      : len === 5 && c === 99 /* c */ ? ATTR_CLASS
      : len === 4 && c === 110 /* n */ ? ATTR_NAME
      : len === 3 && c === 114 /* r */ ? ATTR_REL
      : len === 5 && c === 115 /* s */ ? ATTR_STYLE
      : len > 5 && c === 100 /* d */ ? ATTR_UNREAD
      : 0;
    if (!kind || !this.nameIs(start, ATTR_NAMES[kind]!)) return;
    if (kind === ATTR_UNREAD) {
      if (READ_DATA_LENGTHS.has(len) && READ_DATA_ATTRIBUTES.has(this.html.slice(start, endIndex).toLowerCase())) return;
      this.attrKind = kind;
      this.attrStart = start;
      return;
    }
    this.attrKind = kind;
    this.attrValueStart = -1;
    this.attrStart = start;
  }

  /** True when the page at `start` holds `word` (lower-case letters and `-`), in any case. */
  private nameIs(start: number, word: string): boolean {
    for (let i = 0; i < word.length; i++) if ((this.html.charCodeAt(start + i) | 0x20) !== word.charCodeAt(i)) return false;
    return true;
  }

  onattribdata(start: number, endIndex: number): void {
    if (!this.attrKind) return;
    if (this.attrValueStart < 0) this.attrValueStart = start;
    this.attrValueEnd = endIndex;
  }

  onattribentity(): void {}

  onattribend(_quote: QuoteType, endIndex: number): void {
    const el = this.pending;
    if (!this.attrKind || !el) return;
    if (this.attrKind === ATTR_STYLE || this.attrKind === ATTR_UNREAD) {
      this.styles.push(this.attrStart, endIndex);
      this.attrKind = 0;
      return;
    }
    const raw = this.attrValueStart < 0 ? '' : this.html.slice(this.attrValueStart, this.attrValueEnd);
    const v = raw.includes('&') ? decodeHTMLAttribute(raw) : raw;
    // The first occurrence of an attribute wins, as in the tree builder.
    if (this.attrKind === ATTR_ID && !el.id) el.id = v;
    else if (this.attrKind === ATTR_CLASS && !el.cls) el.cls = v;
    else if (this.attrKind === ATTR_NAME && !el.attrName) el.attrName = v;
    else if (this.attrKind === ATTR_REL && !el.rel) el.rel = v;
    this.attrKind = 0;
  }

  onopentagend(endIndex: number): void {
    this.finishStartTag(endIndex + 1, false);
  }

  onselfclosingtag(endIndex: number): void {
    this.finishStartTag(endIndex + 1, true);
  }

  onclosetag(start: number, endIndex: number): void {
    const name = this.html.slice(start, endIndex).toLowerCase();
    const gt = this.html.indexOf('>', endIndex);
    const end = gt < 0 ? this.html.length : gt + 1;
    this.endTag(name, start - 2, end);
  }

  ontext(start: number, endIndex: number): void {
    if (this.hiddenText) return;
    if (this.active.length) this.reconstructs(start - 1);
    if (this.sinks) {
      const t = this.html.slice(start, endIndex);
      this.addText(t.includes('&') ? decodeHTML(t) : t);
    }
  }

  ontextentity(): void {}

  ondeclaration(start: number, endIndex: number): void {
    if (this.sawElement || this.doctype) return;
    const decl = this.html.slice(start, endIndex);
    if (!/^doctype/i.test(decl)) return;
    this.doctype = `<!${decl}>`;
    this.quirks = isQuirksDoctype(decl);
  }

  oncdata(): void {}
  oncomment(): void {}
  onprocessinginstruction(): void {}

  onend(): void {
    if (this.stack.length) this.popTo(0, this.html.length, -1);
  }

  isInForeignContext(): boolean {
    return this.foreign > 0;
  }

  // ---- what is kept ----

  /** A start tag ended at `tagEnd`: decides whether the element is kept, then inserts it. */
  private finishStartTag(tagEnd: number, selfClosing: boolean): void {
    const el = this.pending;
    this.pending = null;
    if (!el || this.pendingIgnored) return;
    el.tagEnd = tagEnd;
    const name = el.name;
    const r = this.rules;
    const id = el.id.toLowerCase();
    if (id && (r.ids.has(id) || r.prefixes.some((p) => id.startsWith(p)))) {
      el.keep = 1;
      if (r.titleIds.has(id)) this.hasTitle = true;
      if (r.detailsIds.has(el.id) || r.detailsPrefixes.some((p) => el.id.startsWith(p))) this.hasDetails = true;
    } else if (r.classes && el.cls && r.classes.test(el.cls)) {
      el.keep = 1;
    } else if (this.scopeDepth > 0 && r.scopedClasses && el.cls && r.scopedClasses.test(el.cls)) {
      el.keep = 1;
    } else if (id && (r.shellIds.has(id) || r.shellPrefixes.some((p) => id.startsWith(p)))) {
      el.keep = 3;
    } else if (name === 'input' && (id === 'asin' || /^asin(?:\.0)?$/i.test(el.attrName))) {
      el.keep = 1;
    } else if (name === 'link' && el.rel.toLowerCase() === 'canonical') {
      el.keep = 1;
    }
    if (id === 'btasintitle') this.keepClosest(el, (a) => hasClass(a.cls, 'buying') || hasClass(a.cls, 'content'));
    // legacy details: the productDetails anchor and the siblings after it
    if (!this.legacyParent && name === 'a' && (el.id === 'productDetails' || el.attrName === 'productDetails')) {
      this.legacyParent = el.parent;
      el.keep ||= 2;
    } else if (this.legacyParent && !this.legacyDone && el.parent === this.legacyParent) {
      el.sibling = true;
    }
    if (this.legacyParent && !this.legacyDone && this.bucketDepth > 0 && hasClass(el.cls, 'content')) {
      for (let i = this.stack.length - 1; i >= 0; i--) {
        const s = this.stack[i]!;
        if (s.sibling) s.hit = true;
      }
    }
    if (name === 'th' || name === 'b' || (name === 'td' && hasClass(el.cls, 'label')) || hasClass(el.cls, 'a-text-bold')) {
      el.candidate = true;
      el.text = [];
      this.sinks++;
    }
    if (hasClass(el.cls, 'bucket')) {
      el.bucket = true;
      this.bucketDepth++;
    }
    if (id && r.scopeIds.has(id)) {
      el.scope = true;
      this.scopeDepth++;
    }
    this.insert(el, tagEnd, selfClosing);
  }

  protected closed(el: El, closers: number): void {
    if (el.text) {
      this.sinks--;
      this.bsrCandidateClosed(el);
    }
    if (el.sibling && el.hit && !this.legacyDone) {
      // the first sibling after the anchor that holds a `.bucket .content`: the one `legacyBucket` reads
      el.keep ||= 2;
      this.legacyDone = true;
    }
    if (el.keep !== 1 && this.holdsPhrase(el)) el.keep = 1;
    if (el.keep) {
      el.closers = this.closersOf(closers);
      this.kept.push(el);
      if (el.taint) this.inexact ??= `kept <${el.name}> at ${el.start} straddles misnested markup`;
    }
    if (el.bucket) this.bucketDepth--;
    if (el.scope) this.scopeDepth--;
    if (el === this.legacyParent) this.legacyDone = true;
  }

  protected misnested(el: El, index: number): void {
    for (const k of this.kept) if (k.start > el.start) this.inexact ??= `kept part inside misnested <${el.name}> at ${el.start}`;
    for (let i = index; i < this.stack.length; i++) {
      if (this.stack[i]!.keep) this.inexact ??= `kept part inside misnested <${el.name}> at ${el.start}`;
    }
  }

  /** True for an element of `textIds` whose markup holds one of the phrases (its end known). */
  private holdsPhrase(el: El): boolean {
    const r = this.rules;
    return r.phrases !== null && el.id !== '' && r.textIds.has(el.id.toLowerCase()) && r.phrases.test(this.html.slice(el.start, el.end));
  }

  /** Keeps the nearest of `from` and its ancestors that passes `test`. */
  private keepClosest(from: El, test: (a: El) => boolean): void {
    for (let a: El | null = from; a; a = a.parent) {
      if (test(a)) {
        this.keepOpen(a);
        return;
      }
    }
  }

  /** Keeps an element found after its start (its end may still be ahead). */
  private keepOpen(a: El): void {
    if (a.keep === 1) return;
    const listed = (a.keep === 2 || a.keep === 3) && a.end >= 0;
    a.keep = 1;
    if (a.end >= 0 && !listed) this.kept.push(a); // already closed
  }

  /** Text of the page: collected by every open rank-label candidate. */
  private addText(t: string): void {
    for (let i = this.stack.length - 1; i >= 0; i--) this.stack[i]!.text?.push(t);
  }

  /** A rank label candidate closed: keep the row/item the rank reader reads for it. */
  private bsrCandidateClosed(el: El): void {
    const text = el.text!.join('');
    el.text = null;
    if (!isBsrLabel(text)) return;
    if (el.name === 'th' || el.name === 'td') {
      if (el.parent) this.keepOpen(el.parent);
      return;
    }
    this.keepClosest(el, (a) => a.name === 'li' || a.name === 'tr' || a.name === 'td' || (a.name === 'div' && hasClass(a.cls, 'content')));
  }
}
