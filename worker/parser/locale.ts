/**
 * Per-marketplace and per-language words the parser recognises: labels, phrases, number formats and
 * currency symbols. All language data lives here; the field readers hold no localized strings.
 * Match lists are lower-case and compared against cleaned, lower-cased page text.
 */
import type { MarketplaceCode } from '../../core/marketplaces.js';

/** Best Sellers Rank labels (en, de, fr, it, es, pt, ja). A label matches when it contains one of these. */
export const BSR_LABELS: readonly string[] = [
  'best sellers rank',
  'bestsellers rank',
  'best-sellers rank',
  'bestseller-rang',
  'bestseller rang',
  'classement des meilleures ventes',
  'classifica bestseller',
  'clasificación en los más vendidos',
  'los más vendidos de amazon',
  'ranking dos mais vendidos',
  'classificação dos produtos mais vendidos',
  'classificação nos mais vendidos',
  'mais vendidos da amazon',
  '売れ筋ランキング',
  'amazon.co.jp ランキング',
  'ランキング',
];

/**
 * Rank labels that name the rank only as a whole label (compared without a trailing colon): the
 * English-language amazon.co.jp labels its rank "Amazon Bestseller: #4 in Video Games"; as a mere
 * substring "amazon bestseller" would also match badges and headings.
 */
export const BSR_WHOLE_LABELS: readonly string[] = ['amazon bestseller', 'amazon bestsellers'];

/** Customer-review rows of the details section (left out of `details`). */
export const REVIEW_LABELS: readonly string[] = [
  'customer review',
  'average customer review',
  'kundenrezensionen',
  'durchschnittliche kundenbewertung',
  'moyenne des commentaires client',
  'commentaires client',
  'évaluations des clients',
  'recensioni dei clienti',
  'media recensioni',
  'valoración media de los clientes',
  'opiniones de los clientes',
  'opiniones de clientes',
  'avaliações de clientes',
  'avaliação média',
  'avaliações dos clientes',
  'カスタマーレビュー',
  'おすすめ度',
];

/** Links inside a rank line that point to the top-100 list (`(See Top 100 in Books)`); never a category. */
export const SEE_TOP_PHRASES: readonly string[] = [
  'see top 100',
  'siehe top 100',
  'voir les 100',
  'visualizza i top 100',
  'ver el top 100',
  'ver los 100',
  'ver top 100',
  'conheça o top 100',
  'ベストセラーを見る',
  'のベストセラー',
  'ランキングを見る',
];

/** Words between a rank and its category (`#5 in Books`, `n°66 dans X`, `Nº 14 em X`). */
export const RANK_CONNECTORS: readonly string[] = ['in', 'en', 'em', 'dans', 'nel', 'nella', 'nei', 'di'];

/** Rating phrases: `<n> <word> 5` (`4.7 out of 5`, `4,6 von 5`) or the Japanese `5つ星のうち<n>`. */
export const RATING_OUT_OF_WORDS: readonly string[] = [
  'out of', 'von', 'sur', 'étoiles sur', 'su', 'stelle su', 'de', 'de un máximo de', 'estrelas de', 'di', 'of',
];
export const RATING_JA_PREFIX = '5つ星のうち';

/**
 * Brand wrappers around a store/brand name: `[prefix, suffix]` (lower-case), matched case-insensitively.
 * `Visit the SLOWPLAY Store` -> `SLOWPLAY`; `Marque : X` -> `X`.
 */
export const BRAND_WRAPPERS: ReadonlyArray<readonly [string, string]> = [
  ['visit the ', ' store'],
  ['brand: ', ''],
  ['brand : ', ''],
  ['besuchen sie den ', '-store'],
  ['besuchen sie den ', ' store'],
  ['besuche den ', '-store'],
  ['besuche den ', ' store'],
  ['marke: ', ''],
  ['marke : ', ''],
  ['visiter la boutique ', ''],
  ['marque : ', ''],
  ['marque: ', ''],
  ['visita lo store di ', ''],
  ['visita la tienda de ', ''],
  ['visite a loja ', ''],
  ['visite a loja da ', ''],
  ['visite a loja de ', ''],
  ['visite a loja do ', ''],
  ['visite la tienda de ', ''],
  ['marca: ', ''],
  ['marca : ', ''],
  ['ブランド: ', ''],
  ['', 'のストアを表示'],
  ['', 'ストアにアクセス'],
];


/** "Page not found" phrases (404 page), lower-case. */
export const NOT_FOUND_PHRASES: readonly string[] = [
  "we couldn't find that page",
  'we couldn’t find that page',
  'page not found',
  'looking for something?',
  'wir konnten die seite nicht finden',
  'wir konnten diese seite nicht finden',
  'nous ne trouvons pas cette page',
  "nous n'avons pas trouvé la page",
  'non siamo riusciti a trovare la pagina',
  'no hemos podido encontrar la página',
  'não conseguimos encontrar essa página',
  'não encontramos essa página',
  'no pudimos encontrar esa página',
  'ページが見つかりません',
  'お探しのページは見つかりませんでした',
];

/** Robot-check / captcha phrases, lower-case (forms and ids are checked structurally). */
export const CAPTCHA_PHRASES: readonly string[] = [
  'robot check',
  'enter the characters you see below',
  'type the characters you see in this image',
  'click the button below to continue shopping',
  'geben sie die zeichen unten ein',
  'saisissez les caractères que vous voyez',
  'inserisci i caratteri visualizzati',
  'introduce los caracteres que ves',
  'digite os caracteres que você vê',
  'clique no botão abaixo para continuar comprando',
  '表示されている文字を入力してください',
  'continue shopping',
  'continuar comprando',
  'weiter shoppen',
  'continuer les achats',
  'continua gli acquisti',
  'seguir comprando',
];

/** "Something went wrong" (503) phrases, lower-case. */
export const ERROR_PHRASES: readonly string[] = [
  'sorry! something went wrong',
  'something went wrong on our end',
  'es ist ein fehler aufgetreten',
  "une erreur s'est produite",
  'si è verificato un errore',
  'se ha producido un error',
  'algo deu errado',
  'ocorreu um erro',
  '問題が発生しました',
];


/** How a marketplace writes money. */
export interface MoneyFormat {
  /** Decimal separator of prices. */
  decimal: '.' | ',';
  /** Currency tokens (symbol or code) that mean the marketplace's currency on its pages. */
  tokens: readonly string[];
}

const EUR: MoneyFormat = { decimal: ',', tokens: ['€', 'eur'] };

/** Money format per marketplace. A price whose token is not listed is in another currency -> null. */
export const MONEY: Record<MarketplaceCode, MoneyFormat> = {
  com: { decimal: '.', tokens: ['$', 'us$', 'usd'] },
  uk: { decimal: '.', tokens: ['£', 'gbp'] },
  de: EUR,
  fr: EUR,
  it: EUR,
  es: EUR,
  ca: { decimal: '.', tokens: ['$', 'cdn$', 'ca$', 'c$', 'cad'] },
  jp: { decimal: '.', tokens: ['￥', '¥', '円', 'jpy'] },
  in: { decimal: '.', tokens: ['₹', 'rs.', 'rs', 'inr'] },
  mx: { decimal: '.', tokens: ['$', 'mx$', 'mxn'] },
  br: { decimal: ',', tokens: ['r$', 'brl'] },
  au: { decimal: '.', tokens: ['$', 'a$', 'au$', 'aud'] },
};

/** True when `text` (already lower-cased) contains any of `phrases`. */
export function containsAny(text: string, phrases: readonly string[]): boolean {
  return phrases.some((p) => text.includes(p));
}

/**
 * Headers of a buy-box offer section that holds a used offer (`Buy used`, `Used: Good`, `Gebraucht
 * kaufen`, …): its price is never the featured new offer's.
 */
export const USED_OFFER_PHRASES: readonly string[] = [
  'buy used', 'used:', 'used -', 'gebraucht kaufen', 'gebraucht:', "acheter d'occasion", 'acheter d’occasion',
  "d'occasion:", 'compra usato', 'usato:', 'comprar usado', 'usado:', 'comprar seminovo', '中古品を購入', '中古品:',
];

/** Tax notes after a price that are not part of the amount (`￥ 2,814 (税込)`). */
export const TAX_NOTES: readonly string[] = ['（税込）', '(税込)', '税込'];
