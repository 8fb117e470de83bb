/**
 * Tag categories of the HTML tree-construction algorithm (WHATWG HTML, "Parsing HTML documents") that
 * the fragment scanner follows (`tree-construction.ts`), and the doctype test for quirks mode. Only
 * the categories the scanner needs are listed; names follow the standard where it names them.
 */

/** Elements that have no end tag and no content. */
export const VOID = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'frame', 'hr', 'image', 'img', 'input', 'keygen',
  'link', 'meta', 'param', 'source', 'track', 'wbr',
]);
/** The tree builder's "special" category: an end tag never closes past one of these. */
export const SPECIAL = new Set([
  'address', 'applet', 'area', 'article', 'aside', 'base', 'basefont', 'bgsound', 'blockquote', 'body', 'br',
  'button', 'caption', 'center', 'col', 'colgroup', 'dd', 'details', 'dir', 'div', 'dl', 'dt', 'embed', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header',
  'hgroup', 'hr', 'html', 'iframe', 'img', 'input', 'keygen', 'li', 'link', 'listing', 'main', 'marquee', 'menu',
  'meta', 'nav', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'p', 'param', 'plaintext', 'pre', 'script',
  'search', 'section', 'select', 'source', 'style', 'summary', 'table', 'tbody', 'td', 'template', 'textarea',
  'tfoot', 'th', 'thead', 'title', 'tr', 'track', 'ul', 'wbr', 'xmp',
]);
/** Formatting elements: re-opened by the tree builder when closed without their end tag. */
export const FORMATTING = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);
/** Start tags that close an open `p` (in button scope). */
export const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset',
  'figcaption', 'figure', 'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section',
  'summary', 'ul', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'listing', 'form', 'plaintext', 'xmp', 'table', 'hr',
  'li', 'dd', 'dt',
]);
/** Headings: an end tag of one closes any open heading. */
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Boundaries of "has an element in scope"; the button, list and table scopes add to or replace them. */
export const SCOPE = new Set(['applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template']);
export const BUTTON_SCOPE = new Set([...SCOPE, 'button']);
export const LIST_SCOPE = new Set([...SCOPE, 'ol', 'ul']);
export const TABLE_SCOPE = new Set(['html', 'table', 'template']);
/** Start tags that the tree builder ignores outside a table. */
export const TABLE_ONLY = new Set(['caption', 'col', 'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
/** Table parts that bound where the tree builder closes open elements before a new row or cell. */
export const TABLE_SECTIONS = new Set(['tbody', 'thead', 'tfoot']);
/** Table elements whose end tags close up to the match in table scope. */
export const TABLE_PARTS = new Set(['table', 'caption', 'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
/** Current nodes at which the tree builder is "in table" (a form there is inserted empty). */
export const TABLE_CONTEXT = new Set(['table', 'tbody', 'tfoot', 'thead', 'tr']);
/** Cells and captions: a table inside one of them is nested, not a sibling. */
export const CELLS = new Set(['td', 'th', 'caption']);
/** Rows: a new cell closes what is open above the row. */
export const TR = new Set(['tr']);
/** Roots of inline foreign content (SVG, MathML). */
export const FOREIGN_ROOTS = new Set(['svg', 'math']);
/** Table tags that close an open `select` when their table is in scope. */
export const SELECT_CLOSERS = new Set(['caption', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
/** Elements that put a marker on the list of active formatting elements. */
export const MARKERS = new Set(['applet', 'object', 'marquee', 'template', 'td', 'th', 'caption']);
/** Start tags that do not reconstruct active formatting elements (the "in body" block-level ones). */
export const NO_RECONSTRUCT = new Set([
  ...CLOSES_P, 'html', 'head', 'body', 'base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style',
  'template', 'title', 'frameset', 'table', 'hr', 'textarea', 'xmp', 'iframe', 'noembed', 'noscript', 'caption', 'col',
  'colgroup', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th', 'optgroup', 'option', 'param', 'source', 'track',
]);
/** Start tags that break out of inline SVG/MathML back into HTML. */
export const FOREIGN_BREAKOUT = new Set([
  'b', 'big', 'blockquote', 'body', 'br', 'center', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'embed', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'head', 'hr', 'i', 'img', 'li', 'listing', 'menu', 'meta', 'nobr', 'ol', 'p', 'pre', 'ruby', 's',
  'small', 'span', 'strong', 'strike', 'sub', 'sup', 'table', 'tt', 'u', 'ul', 'var',
]);
/** Names whose open elements are counted (the scope checks of the tree builder look for them). */
export const COUNTED = new Set([
  'select', 'table', 'caption', 'colgroup', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'p', 'li', 'dd', 'dt', 'a',
  'nobr', 'button', 'svg', 'math', ...FORMATTING,
]);

/** Elements whose content the tokenizer reads as text; `script`/`style` text is never part of a field. */
export const HIDDEN_TEXT = new Set(['script', 'style']);

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
