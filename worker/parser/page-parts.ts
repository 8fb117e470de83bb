/**
 * The parts of a product page the field readers look at, as each reader module declares them
 * (`*_PARTS`), and their compiled form for the fragment scanner (`fragment-scanner.ts`).
 */

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
  /**
   * Elements whose whole text a reader searches for phrases (`#corePrice_feature_div` for "Prime Member
   * Price"): kept in full when their markup holds one of the phrases (words separated by any run of
   * spaces, entities, tags or comments, any case), else as the other rules say. Keeping more than the
   * reader needs is always safe; the phrase test only keeps such blocks out of most documents.
   */
  readonly textIds?: { readonly ids: readonly string[]; readonly phrases: readonly string[] };
}

/**
 * The `data-*` attributes a reader reads (selectors and `getAttribute`): the fragment document leaves
 * every other one out (add a name here before a reader reads it).
 */
export const READ_DATA_ATTRIBUTES: ReadonlySet<string> = new Set([
  'data-a-strike', 'data-action', 'data-a-dynamic-image', 'data-asin', 'data-defaultasin', 'data-old-hires',
]);

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
export interface PartRules {
  ids: Set<string>;
  prefixes: string[];
  /** Matches a class attribute value that lists one of the classes (any case), or null. */
  classes: RegExp | null;
  shellIds: Set<string>;
  shellPrefixes: string[];
  scopeIds: Set<string>;
  scopedClasses: RegExp | null;
  titleIds: Set<string>;
  /** `textIds`: the ids, and a test of an element's markup for one of the phrases. */
  textIds: Set<string>;
  phrases: RegExp | null;
  /** Details containers, exact case (as `readDetails` finds them: the legacy block is read only without one). */
  detailsIds: Set<string>;
  detailsPrefixes: readonly string[];
}

/**
 * Compiles the parts of every reader, the title elements (page kind) and the product-details containers
 * into the rules the fragment scanner applies to each start tag.
 */
export function compilePageParts(parts: readonly PageParts[], title: PageParts, details: PageParts): PartRules {
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
    textIds: new Set(all.flatMap((p) => lower(p.textIds?.ids))),
    phrases: phraseRe(all.flatMap((p) => p.textIds?.phrases ?? [])),
    detailsIds: new Set(details.ids),
    detailsPrefixes: details.idPrefixes ?? [],
  };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const classRe = (names: string[]): RegExp | null =>
  names.length ? new RegExp(`(?:^|[\\t\\n\\f\\r ])(?:${names.map(escapeRe).join('|')})(?=$|[\\t\\n\\f\\r ])`, 'i') : null;

/** Anything the tree builder turns into a word break or nothing between two words of a phrase. */
const BETWEEN_WORDS = '(?:\\s|&[#\\w]+;|<[^>]*>)+';
/** A phrase test on markup (see `PageParts.textIds`): generous, never missing a phrase the text shows. */
const phraseRe = (phrases: string[]): RegExp | null =>
  phrases.length ? new RegExp(phrases.map((p) => p.split(/\s+/).map(escapeRe).join(BETWEEN_WORDS)).join('|'), 'i') : null;
