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
 * page. Script bodies are emptied, styles and comments dropped, as `prepare.ts` does for the full page,
 * and `style` attributes are left out (no reader looks at them; jsdom parses each one as CSS).
 *
 * What is kept (each reader module declares its parts as `PageParts`; `index.ts` passes them all):
 * - elements whose id is listed, or starts with a listed prefix, or that carry a listed class: in full;
 * - elements read only for their presence and position, or for some parts inside them (the core price
 *   containers, the inline twister rows): as empty elements holding the parts kept inside them;
 * - Best Sellers Rank labels found by text (`th`, `td.label`, `b`, `.a-text-bold` whose text names the
 *   rank, as `findBsrBlock` searches): the row/item holding them;
 * - `input#ASIN`, `input[name=ASIN|ASIN.0]`, `link[rel=canonical]` (the page's ASIN);
 * - the `.buying` block around a 2008-era `#btAsinTitle` (byline);
 * - when the page has no product-details container: the `productDetails` anchor and the first of its
 *   following siblings that holds a legacy `.bucket .content` (details; the siblings before it are
 *   passed over by `legacyBucket` without being read).
 *
 * The tree builder is followed closely enough for Amazon pages: void elements, end tags closing open
 * elements up to their match (never across a block that the end tag cannot close), optional end tags
 * (`p`, `li`, `dd`/`dt`, `option`, table parts), ignored stray table tags, `select` content, nested
 * forms, misnested formatting elements (adoption agency) away from the kept parts. Where the page does
 * something this model does not follow around a kept part (`exact: false`), the caller parses the
 * whole page instead.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';
import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { isBsrLabel } from './bsr.js';
import { stripScriptsAndStyles } from './prepare.js';

/** The parts of a page one reader reads: kept with their ancestors' start tags. */
export interface PageParts {
  /** Element ids (`#productTitle`): kept in full. */
  readonly ids?: readonly string[];
  /** Id prefixes (`[id^="productDetails_techSpec_section_"]`, `#variation_<dimension>`): kept in full. */
  readonly idPrefixes?: readonly string[];
  /** Class names (`.priceLarge`): kept in full. */
  readonly classes?: readonly string[];
  /**
   * Elements read for their presence, order and ancestors only, or only for the parts inside them:
   * kept as empty elements (with the kept parts inside them), by id or id prefix.
   */
  readonly shellIds?: readonly string[];
  readonly shellIdPrefixes?: readonly string[];
  /** Class names kept in full inside an element with one of the `within` ids (`#apex_desktop .priceToPay`). */
  readonly scoped?: { readonly within: readonly string[]; readonly classes: readonly string[] };
}

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

interface El {
  name: string;
  /** Index of `<` of the start tag. */
  start: number;
  /** Index after `>` of the start tag. */
  tagEnd: number;
  /** Index after the element's end (its end tag, or where it was closed); -1 while open. */
  end: number;
  parent: El | null;
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

const VOID = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'frame', 'hr', 'image', 'img', 'input', 'keygen',
  'link', 'meta', 'param', 'source', 'track', 'wbr',
]);
/** The tree builder's "special" category: an end tag never closes past one of these. */
const SPECIAL = new Set([
  'address', 'applet', 'area', 'article', 'aside', 'base', 'basefont', 'bgsound', 'blockquote', 'body', 'br',
  'button', 'caption', 'center', 'col', 'colgroup', 'dd', 'details', 'dir', 'div', 'dl', 'dt', 'embed', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header',
  'hgroup', 'hr', 'html', 'iframe', 'img', 'input', 'keygen', 'li', 'link', 'listing', 'main', 'marquee', 'menu',
  'meta', 'nav', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'p', 'param', 'plaintext', 'pre', 'script',
  'search', 'section', 'select', 'source', 'style', 'summary', 'table', 'tbody', 'td', 'template', 'textarea',
  'tfoot', 'th', 'thead', 'title', 'tr', 'track', 'ul', 'wbr', 'xmp',
]);
const FORMATTING = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);
/** Start tags that close an open `p` (in button scope). */
const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset',
  'figcaption', 'figure', 'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section',
  'summary', 'ul', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'listing', 'form', 'plaintext', 'xmp', 'table', 'hr',
  'li', 'dd', 'dt',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const SCOPE = new Set(['applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template']);
const BUTTON_SCOPE = new Set([...SCOPE, 'button']);
const LIST_SCOPE = new Set([...SCOPE, 'ol', 'ul']);
const TABLE_SCOPE = new Set(['html', 'table', 'template']);
/** Start tags that the tree builder ignores outside a table. */
const TABLE_ONLY = new Set(['caption', 'col', 'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
const TABLE_SECTIONS = new Set(['tbody', 'thead', 'tfoot']);
const TABLE_PARTS = new Set(['table', 'caption', 'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
const TABLE_CONTEXT = new Set(['table', 'tbody', 'tfoot', 'thead', 'tr']);
const CELLS = new Set(['td', 'th', 'caption']);
const TR = new Set(['tr']);
const FOREIGN_ROOTS = new Set(['svg', 'math']);
const SELECT_CLOSERS = new Set(['caption', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
/** Elements that put a marker on the list of active formatting elements. */
const MARKERS = new Set(['applet', 'object', 'marquee', 'template', 'td', 'th', 'caption']);
/** Start tags that do not reconstruct active formatting elements (the "in body" block-level ones). */
const NO_RECONSTRUCT = new Set([
  ...CLOSES_P, 'html', 'head', 'body', 'base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style',
  'template', 'title', 'frameset', 'table', 'hr', 'textarea', 'xmp', 'iframe', 'noembed', 'noscript', 'caption', 'col',
  'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th', 'optgroup', 'option', 'param', 'source', 'track',
]);
/** Start tags that break out of inline SVG/MathML back into HTML. */
const FOREIGN_BREAKOUT = new Set([
  'b', 'big', 'blockquote', 'body', 'br', 'center', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'embed', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'head', 'hr', 'i', 'img', 'li', 'listing', 'menu', 'meta', 'nobr', 'ol', 'p', 'pre', 'ruby', 's',
  'small', 'span', 'strong', 'strike', 'sub', 'sup', 'table', 'tt', 'u', 'ul', 'var',
]);
/** Names whose open elements are counted (the scope checks of the tree builder look for them). */
const COUNTED = new Set([
  'select', 'table', 'caption', 'colgroup', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'p', 'li', 'dd', 'dt', 'a',
  'nobr', 'button', 'svg', 'math', ...FORMATTING,
]);

/** Elements whose content the tokenizer reads as text; `script`/`style` text is never part of a field. */
const HIDDEN_TEXT = new Set(['script', 'style']);

/** Public ids of doctypes that put the page in quirks mode (where `<table>` does not close a `<p>`). */
const QUIRKS_PUBLIC = [
  '+//silmaril//', '-//advasoft ltd//', '-//as//', '-//ietf//', '-//metrius//', '-//microsoft//', '-//netscape comm',
  '-//o\'reilly and associates//', '-//softquad', '-//spyglass//', '-//sq//', '-//sun microsystems corp.//',
  '-//w3c//dtd html 3', '-//w3c//dtd html 4.0 ', '-//w3c//dtd w3 html//', '-//w3o//', '-//webtechs//',
  '-//w3c//dtd html experimental', '-//w3c//dtd html 4.01 transitional//', '-//w3c//dtd html 4.01 frameset//',
  'html',
];

/** True when a doctype (`DOCTYPE html PUBLIC "..." "..."`, without `<!` and `>`) means quirks mode. */
export function isQuirksDoctype(decl: string): boolean {
  const m = /^doctype\s+([^\s>]*)\s*(?:public\s*(["'])(.*?)\2\s*(?:(["'])(.*?)\4)?|system\s*(["'])(.*?)\6)?/i.exec(decl.trim());
  if (!m || m[1]!.toLowerCase() !== 'html') return true;
  const pub = m[3]?.toLowerCase();
  const sys = (m[5] ?? m[7])?.toLowerCase();
  if (sys === 'http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd') return true;
  if (pub === undefined) return false;
  if (pub === '-//w3o//dtd w3 html strict 3.0//en//' || pub === '-/w3c/dtd html 4.0 transitional/en') return true;
  const withSys = pub.startsWith('-//w3c//dtd html 4.01 transitional//') || pub.startsWith('-//w3c//dtd html 4.01 frameset//');
  if (withSys) return m[5] === undefined;
  return QUIRKS_PUBLIC.some((p) => (p === 'html' ? pub === 'html' : pub.startsWith(p)));
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;

/** True when a class attribute value lists `name` (whitespace-separated tokens, case-sensitive). */
export function hasClass(cls: string, name: string): boolean {
  for (let i = cls.indexOf(name); i >= 0; i = cls.indexOf(name, i + 1)) {
    const end = i + name.length;
    if ((i === 0 || isSpace(cls.charCodeAt(i - 1))) && (end === cls.length || isSpace(cls.charCodeAt(end)))) return true;
  }
  return false;
}

/** Compiled `PageParts`: ids and classes compared lower-case (a superset of what the selectors match). */
interface Rules {
  ids: Set<string>;
  prefixes: string[];
  /** Matches a class attribute value that lists one of the classes (any case), or null. */
  classes: RegExp | null;
  shellIds: Set<string>;
  shellPrefixes: string[];
  scopeIds: Set<string>;
  scopedClasses: RegExp | null;
  titleIds: Set<string>;
  /** Details containers, exact case (as `readDetails` finds them: the legacy block is read only without one). */
  detailsIds: Set<string>;
  detailsPrefixes: readonly string[];
}

function compile(parts: readonly PageParts[], title: PageParts, details: PageParts): Rules {
  const lower = (xs: readonly string[] | undefined): string[] => (xs ?? []).map((x) => x.toLowerCase());
  const all = [...parts, title, details];
  return {
    ids: new Set(all.flatMap((p) => lower(p.ids))),
    prefixes: all.flatMap((p) => lower(p.idPrefixes)),
    classes: classRe(all.flatMap((p) => p.classes ?? [])),
    shellIds: new Set(all.flatMap((p) => lower(p.shellIds))),
    shellPrefixes: all.flatMap((p) => lower(p.shellIdPrefixes)),
    scopeIds: new Set(all.flatMap((p) => lower(p.scoped?.within))),
    scopedClasses: classRe(all.flatMap((p) => p.scoped?.classes ?? [])),
    titleIds: new Set(lower(title.ids)),
    detailsIds: new Set(details.ids),
    detailsPrefixes: details.idPrefixes ?? [],
  };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const classRe = (names: string[]): RegExp | null =>
  names.length ? new RegExp(`(?:^|[\\t\\n\\f\\r ])(?:${names.map(escapeRe).join('|')})(?=$|[\\t\\n\\f\\r ])`, 'i') : null;

const ATTR_ID = 1;
const ATTR_CLASS = 2;
const ATTR_NAME = 3;
const ATTR_REL = 4;
const ATTR_STYLE = 5;

/** One pass over the page: the element tree as the tree builder would build it, and the kept parts. */
class Scanner implements TokenizerCallbacks {
  private readonly stack: El[] = [];
  private pending: El | null = null;
  private pendingIgnored = false;
  private attrKind = 0;
  private attrValueStart = -1;
  private attrValueEnd = -1;
  /** Open Best Sellers Rank label candidates (collecting text). */
  private sinks = 0;
  private hiddenText = false;
  private form: El | null = null;
  private foreign = 0;
  private sawElement = false;
  private quirks = true;
  private doctype = '';
  /** Legacy details: the parent whose children after the anchor are kept (until a `.bucket .content`). */
  private legacyParent: El | null = null;
  private legacyDone = false;
  private bucketDepth = 0;
  /** Open elements with a `scoped.within` id. */
  private scopeDepth = 0;
  /** Formatting elements the tree builder would re-open (null: a marker), see `reconstructs`. */
  private readonly active: (El | null)[] = [];
  /** How many elements of each `COUNTED` name are open (spares walking the stack for names that are not). */
  private readonly open = new Map<string, number>();
  readonly kept: El[] = [];
  /** `[start, end)` of every `style` attribute, in page order (left out of the kept markup). */
  private readonly styles: number[] = [];
  private attrStart = 0;
  hasTitle = false;
  hasDetails = false;
  inexact: string | null = null;

  constructor(
    private readonly html: string,
    private readonly rules: Rules,
  ) {}

  /** The document to hand to jsdom. */
  assemble(): string {
    const out: string[] = [this.doctype];
    let open: El[] = [];
    for (const r of this.regions()) {
      const path: El[] = [];
      for (let p = r.parent; p; p = p.parent) path.push(p);
      path.reverse();
      let k = 0;
      while (k < open.length && k < path.length && open[k] === path[k]) k++;
      for (let i = open.length - 1; i >= k; i--) out.push(`</${open[i]!.name}>`);
      for (let i = k; i < path.length; i++) {
        const a = path[i]!;
        if (a.candidate) this.inexact ??= `kept part inside a rank-label candidate <${a.name}> at ${a.start}`;
        if (a.taint === 2) this.inexact ??= `kept part inside a re-parented <${a.name}> at ${a.start}`;
        out.push(this.slice(a.start, a.tagEnd));
      }
      if (r.keep === 3) {
        // kept empty: its start tag, then the parts inside it; closed when the next part is outside it
        if (r.candidate) this.inexact ??= `rank-label candidate <${r.name}> kept empty at ${r.start}`;
        out.push(this.slice(r.start, r.tagEnd));
        open = [...path, r];
        continue;
      }
      open = path;
      out.push(stripScriptsAndStyles(this.slice(r.start, r.end)), r.closers);
    }
    for (let i = open.length - 1; i >= 0; i--) out.push(`</${open[i]!.name}>`);
    return out.join('');
  }

  /** The page from `start` to `end` without its `style` attributes. */
  private slice(start: number, end: number): string {
    const st = this.styles;
    let lo = 0;
    let hi = st.length >> 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (st[2 * mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    let out = '';
    let pos = start;
    for (let i = lo; i < st.length >> 1 && st[2 * i]! < end; i++) {
      out += this.html.slice(pos, st[2 * i]!);
      pos = Math.min(end, st[2 * i + 1]!);
    }
    return out + this.html.slice(pos, end);
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
    const parent = this.top();
    this.pending = {
      name, start: lt, tagEnd: -1, end: -1, parent, id: '', cls: '', attrName: '', rel: '',
      keep: 0, scope: false, closers: '', candidate: false, text: null, sibling: false, hit: false, bucket: false, taint: 0,
    };
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
      : 0;
    if (!kind) return;
    const n = this.html.slice(start, endIndex).toLowerCase();
    if (n === 'id' || n === 'class' || n === 'name' || n === 'rel' || n === 'style') {
      this.attrKind = kind;
      this.attrValueStart = -1;
      this.attrStart = start;
    }
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
    if (this.attrKind === ATTR_STYLE) {
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

  // ---- tree building ----

  private top(): El | null {
    return this.stack.length ? this.stack[this.stack.length - 1]! : null;
  }

  private push(el: El): void {
    this.stack.push(el);
    if (COUNTED.has(el.name)) this.open.set(el.name, (this.open.get(el.name) ?? 0) + 1);
  }

  /** False when no element `name` is open (true when open, or when `name` is not counted). */
  private isOpen(name: string): boolean {
    return !COUNTED.has(name) || (this.open.get(name) ?? 0) > 0;
  }

  private dropped(el: El): void {
    if (COUNTED.has(el.name)) this.open.set(el.name, this.open.get(el.name)! - 1);
  }

  /** Index of the topmost open `name` before a scope boundary, or -1. */
  private inScope(name: string, boundary: ReadonlySet<string>): number {
    if (!this.isOpen(name)) return -1;
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const n = this.stack[i]!.name;
      if (n === name) return i;
      if (boundary.has(n)) return -1;
    }
    return -1;
  }

  private indexOf(names: ReadonlySet<string>, from = this.stack.length - 1): number {
    for (let i = from; i >= 0; i--) if (names.has(this.stack[i]!.name)) return i;
    return -1;
  }

  /** Closes the elements above `index` (not it): they end at `pos` without an end tag. */
  private popAbove(index: number, pos: number): void {
    if (index + 1 < this.stack.length) this.popTo(index + 1, pos, -1);
  }

  /**
   * Pops the stack down to `index` (inclusive). The element at `index` ends at `ownEnd` when its own end
   * tag closes it (`ownEnd >= 0`), every other one at `pos`.
   */
  private popTo(index: number, pos: number, ownEnd: number): void {
    const closed: string[] = [];
    while (this.stack.length > index) {
      const el = this.stack.pop()!;
      this.dropped(el);
      const explicit = ownEnd >= 0 && this.stack.length === index;
      closed.push(`</${el.name}>`);
      this.close(el, explicit ? ownEnd : pos, explicit ? '' : closed.join(''));
      if (explicit && FORMATTING.has(el.name)) this.forget(el);
    }
  }

  /** Drops a formatting element from the active list (its end tag was seen). */
  private forget(el: El): void {
    const i = this.active.lastIndexOf(el);
    if (i >= 0) this.active.splice(i, 1);
  }

  /**
   * Text or an inline start tag at `pos`: the tree builder re-opens formatting elements that were closed
   * without their end tag (an unclosed `<b>` wraps what follows). This model does not rebuild them.
   */
  private reconstructs(pos: number): void {
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
  private removeAt(index: number, end: number, adopted: boolean): void {
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
      for (const k of this.kept) if (k.start > el.start) this.inexact ??= `kept part inside misnested <${el.name}> at ${el.start}`;
      for (let i = index; i < this.stack.length; i++) {
        if (this.stack[i]!.keep) this.inexact ??= `kept part inside misnested <${el.name}> at ${el.start}`;
      }
    }
    this.close(el, end, '');
    if (FORMATTING.has(el.name)) this.forget(el);
  }

  private close(el: El, end: number, closers: string): void {
    el.end = end;
    if (el.text) {
      this.sinks--;
      this.bsrCandidateClosed(el);
    }
    if (HIDDEN_TEXT.has(el.name)) this.hiddenText = false;
    if (FOREIGN_ROOTS.has(el.name)) this.foreign--;
    if (el.sibling && el.hit && !this.legacyDone) {
      // the first sibling after the anchor that holds a `.bucket .content`: the one `legacyBucket` reads
      el.keep ||= 2;
      this.legacyDone = true;
    }
    if (el.keep) {
      el.closers = closers;
      this.kept.push(el);
      if (el.taint) this.inexact ??= `kept <${el.name}> at ${el.start} straddles misnested markup`;
    }
    if (MARKERS.has(el.name)) {
      // leaving a cell (or object...) clears the formatting elements opened inside it
      const m = this.active.lastIndexOf(null);
      if (m >= 0) this.active.length = m;
    }
    if (el.bucket) this.bucketDepth--;
    if (el.scope) this.scopeDepth--;
    if (el === this.legacyParent) this.legacyDone = true;
  }

  /**
   * Implied end tags and ignored start tags before a start tag is inserted.
   * @returns false when the tree builder ignores this start tag.
   */
  private beforeStartTag(name: string, lt: number): boolean {
    const stack = this.stack;
    if (this.foreign > 0) {
      if (!FOREIGN_BREAKOUT.has(name)) return true;
      const f = this.indexOf(FOREIGN_ROOTS);
      if (f >= 0) this.popTo(f, lt, -1);
    }
    // select content: only options (and a few others) are elements there
    const sel = this.inScope('select', TABLE_SCOPE);
    if (sel >= 0) {
      const cur = this.top()!.name;
      if (name === 'option') {
        if (cur === 'option') this.popTo(stack.length - 1, lt, -1);
        return true;
      }
      if (name === 'optgroup' || name === 'hr') {
        if (this.top()!.name === 'option') this.popTo(stack.length - 1, lt, -1);
        if (this.top()!.name === 'optgroup') this.popTo(stack.length - 1, lt, -1);
        return true;
      }
      if (name === 'select' || name === 'input' || name === 'keygen' || name === 'textarea') {
        this.popTo(sel, lt, -1);
        return name !== 'select';
      }
      if (SELECT_CLOSERS.has(name) && this.inScope('table', TABLE_SCOPE) >= 0) {
        this.popTo(sel, lt, -1);
      } else if (name !== 'script' && name !== 'template') {
        return false;
      }
    }
    if (name === 'html' || name === 'body' || name === 'head') {
      if (stack.some((e) => e.name === name)) return false;
      if (name === 'head' && stack.some((e) => e.name === 'body')) return false;
      if (name === 'body') {
        const head = stack.findIndex((e) => e.name === 'head');
        if (head >= 0) this.popTo(head, lt, -1);
      }
      return true;
    }
    if (name === 'frame') return false;
    if (TABLE_ONLY.has(name)) {
      const table = this.isOpen('table') ? this.indexOf(TABLE_SCOPE) : -1;
      if (table < 0 || stack[table]!.name !== 'table') return false;
      if (name === 'tr') {
        const sec = this.indexOf(TABLE_SECTIONS);
        this.popAbove(sec > table ? sec : table, lt);
      } else if (name === 'td' || name === 'th') {
        const tr = this.indexOf(TR);
        this.popAbove(tr > table ? tr : table, lt);
      } else {
        this.popAbove(table, lt);
      }
      return true;
    }
    if (name === 'table' && this.isOpen('table')) {
      // a table directly in a table (not in a cell) closes the open one
      const table = this.indexOf(TABLE_SCOPE);
      const cell = this.indexOf(CELLS);
      if (table >= 0 && stack[table]!.name === 'table' && cell < table) this.popTo(table, lt, -1);
    }
    if (name === 'form' && this.form) return false;
    if ((name === 'li' && this.isOpen('li')) || ((name === 'dd' || name === 'dt') && (this.isOpen('dd') || this.isOpen('dt')))) {
      const match = name === 'li' ? ['li'] : ['dd', 'dt'];
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (match.includes(n)) {
          this.popTo(i, lt, -1);
          break;
        }
        if (SPECIAL.has(n) && n !== 'address' && n !== 'div' && n !== 'p') break;
      }
    }
    if (CLOSES_P.has(name) && this.isOpen('p') && !(name === 'table' && this.quirks)) {
      const p = this.inScope('p', BUTTON_SCOPE);
      if (p >= 0) this.popTo(p, lt, -1);
    }
    if (HEADINGS.has(name) && HEADINGS.has(this.top()?.name ?? '')) this.popTo(stack.length - 1, lt, -1);
    if (name === 'button') {
      const b = this.inScope('button', SCOPE);
      if (b >= 0) this.popTo(b, lt, -1);
    }
    if (name === 'a' || name === 'nobr') {
      const i = this.inScope(name, SCOPE);
      if (i >= 0) this.formattingEnd(i, lt, -1);
      else if (name === 'a') {
        // an `a` closed without its end tag (still active) is closed by a new one
        for (let j = this.active.length - 1; j >= 0 && this.active[j]; j--) {
          if (this.active[j]!.name === 'a') {
            this.active.splice(j, 1);
            break;
          }
        }
      }
    }
    if ((name === 'option' || name === 'optgroup') && this.top()?.name === 'option') this.popTo(stack.length - 1, lt, -1);
    if (this.active.length && !NO_RECONSTRUCT.has(name)) this.reconstructs(lt);
    return true;
  }

  /** True when the tree builder is in a table context (not in a cell) at the current node. */
  private tableMode(): boolean {
    const i = this.indexOf(TABLE_PARTS);
    return i >= 0 && TABLE_CONTEXT.has(this.stack[i]!.name) && i === this.stack.length - 1;
  }

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
    if (id === 'btasintitle') this.keepClosest(el, (a) => hasClass(a.cls, 'buying'));
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
    if ((this.foreign > 0 && selfClosing) || VOID.has(name)) {
      this.close(el, tagEnd, '');
      return;
    }
    if (hasClass(el.cls, 'bucket')) {
      el.bucket = true;
      this.bucketDepth++;
    }
    if (id && r.scopeIds.has(id)) {
      el.scope = true;
      this.scopeDepth++;
    }
    if (name === 'form') {
      this.form = el;
      if (this.tableMode()) {
        // a form directly in a table is inserted empty
        this.close(el, tagEnd, '');
        return;
      }
    }
    this.push(el);
    if (FORMATTING.has(name)) this.active.push(el);
    else if (MARKERS.has(name)) this.active.push(null);
    if (FOREIGN_ROOTS.has(name)) this.foreign++;
    if (HIDDEN_TEXT.has(name)) this.hiddenText = true;
  }

  private endTag(name: string, lt: number, end: number): void {
    const stack = this.stack;
    if (name === 'br' || name === 'body' || name === 'html') return;
    if (this.foreign > 0) {
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i]!.name === name) return this.popTo(i, lt, end);
        if (stack[i]!.name === 'svg' || stack[i]!.name === 'math') break;
      }
    }
    const sel = this.inScope('select', TABLE_SCOPE);
    if (sel >= 0) {
      if (name === 'select') return this.popTo(sel, lt, end);
      if (name === 'option' && this.top()?.name === 'option') return this.popTo(stack.length - 1, lt, end);
      if (name === 'optgroup') {
        if (this.top()?.name === 'option' && stack[stack.length - 2]?.name === 'optgroup') this.popTo(stack.length - 1, lt, -1);
        if (this.top()?.name === 'optgroup') this.popTo(stack.length - 1, lt, end);
        return;
      }
      if (!SELECT_CLOSERS.has(name)) return;
      if (this.inScope(name, TABLE_SCOPE) < 0) return;
      this.popTo(sel, lt, -1);
    }
    if (name === 'form') {
      const f = this.form;
      this.form = null;
      if (!f) return;
      const i = stack.indexOf(f);
      if (i < 0) return;
      if (i === stack.length - 1) return this.popTo(i, lt, end);
      return this.removeAt(i, end, false);
    }
    if (HEADINGS.has(name)) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (HEADINGS.has(n)) return this.popTo(i, lt, n === name ? end : -1);
        if (SCOPE.has(n)) return;
      }
      return;
    }
    if (name === 'p') {
      const i = this.inScope('p', BUTTON_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (name === 'li') {
      const i = this.inScope('li', LIST_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (name === 'dd' || name === 'dt') {
      const i = this.inScope(name, SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (TABLE_PARTS.has(name)) {
      const i = this.inScope(name, TABLE_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (FORMATTING.has(name)) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (n === name) return this.formattingEnd(i, lt, end);
        if (SCOPE.has(n)) return;
      }
      return;
    }
    for (let i = stack.length - 1; i >= 0; i--) {
      const n = stack[i]!.name;
      if (n === name) return this.popTo(i, lt, end);
      if (SPECIAL.has(n)) return;
    }
  }

  /** End of a formatting element at stack `index`: closes it, or (a block opened inside it) removes it. */
  private formattingEnd(index: number, lt: number, ownEnd: number): void {
    const stack = this.stack;
    let block = -1;
    for (let i = index + 1; i < stack.length; i++) {
      if (SPECIAL.has(stack[i]!.name)) {
        block = i;
        break;
      }
    }
    const fe = stack[index]!;
    if (block < 0) {
      this.popTo(index, lt, ownEnd);
      this.forget(fe);
      return;
    }
    // Adoption agency: the block moves out of the formatting element.
    this.removeAt(index, ownEnd >= 0 ? ownEnd : lt, true);
  }

  // ---- kept parts ----

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

/**
 * Cuts the parts the readers need out of a page (see the module comment).
 * @param html the decoded page
 * @param parts the containers of every reader
 * @param title the title elements (page kind)
 * @param details the product-details containers
 */
export function extractFragments(html: string, parts: readonly PageParts[], title: PageParts, details: PageParts): Fragments {
  const scanner = new Scanner(html, compile(parts, title, details));
  // Entities are decoded only where the scanner reads text or attribute values (see `ontext`, `onattribend`).
  const tokenizer = new Tokenizer({ decodeEntities: false }, scanner);
  tokenizer.write(html);
  tokenizer.end();
  const out = scanner.hasTitle ? scanner.assemble() : '';
  const kept = scanner.regions().map((e) => ({ start: e.start, end: e.end, tag: e.name, id: e.id }));
  return { html: out, hasTitle: scanner.hasTitle, exact: scanner.inexact === null, inexact: scanner.inexact, parts: kept };
}
