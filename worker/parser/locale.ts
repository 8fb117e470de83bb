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
  'amazon bestseller:',
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
 * Rank labels recognised only as a whole label (compared without a trailing colon): the table row of
 * the English-language amazon.co.jp is labelled "Amazon Bestseller" without the colon its bullet
 * carries, and as a mere substring the words would also match badges and headings.
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
 * Headers of a buy-box offer section that holds a used offer (`Buy used`, `Gebraucht kaufen`, …): its
 * price is never the featured new offer's, whatever ids the section carries.
 */
export const USED_OFFER_PHRASES: readonly string[] = [
  'buy used', 'used:', 'used -', 'gebraucht kaufen', 'gebraucht:', "acheter d'occasion", 'acheter d’occasion',
  "d'occasion:", 'compra usato', 'usato:', 'comprar usado', 'usado:', 'comprar seminovo', '中古品を購入', '中古品:',
];

/**
 * Whole price texts of an offer that costs nothing (an app's "Free Download"), lower-case, without a
 * closing full stop: the price is 0 in the marketplace's currency.
 */
export const FREE_PRICE_TEXTS: readonly string[] = [
  'free download', 'free', 'kostenloser download', 'kostenlos', 'gratis', 'téléchargement gratuit', 'gratuit', 'download gratuito',
  'descarga gratuita', 'gratuito', '無料ダウンロード', '無料',
];

/** Tax notes after a price that are not part of the amount (`￥ 2,814 (税込)`). */
export const TAX_NOTES: readonly string[] = ['（税込）', '(税込)', '税込'];

/** Headings of the "About this item" list where a page has no `#feature-bullets` (lower-case). */
export const ABOUT_THIS_ITEM: readonly string[] = [
  'about this item', 'sobre este item', 'sobre este produto', 'acerca de este producto', 'acerca de este artículo',
  'info su questo articolo', 'über diesen artikel', 'à propos de cet article', 'この商品について',
];

/** Delivery-line prefixes before the place (lower-case, longest first where one contains another). */
export const DELIVER_TO_PREFIXES: readonly string[] = [
  'votre adresse de livraison', 'delivering to', 'deliver to', 'ship to', 'entregando em', 'entregar em', 'enviar para', 'enviar a',
  'se entregará a', 'se entregará en', 'entrega en', 'entregar en', 'liefern an', 'liefern nach', 'lieferung an', 'livrer à',
  'livraison à', 'consegna a', 'spedizione a', 'お届け先',
];

/** Delivery-line suffixes after the place (Japanese "東京都 160-0022にお届け"), lower-case, longest first. */
export const DELIVER_TO_SUFFIXES: readonly string[] = ['にお届けします', 'へお届けします', 'にお届け', 'へお届け'];

/** Delivery-line texts that name no place (a prompt to choose one), lower-case. */
export const NO_PLACE_PHRASES: readonly string[] = [
  'select your address', 'select delivery location', 'choose location for most accurate options', 'update location',
  'selecione o endereço', 'atualizar local', 'atualizar cep', 'actualizar ubicación', 'selecciona tu dirección',
  'elige tu dirección', 'adresse auswählen', 'standort aktualisieren', 'choisir votre adresse', 'mettre à jour',
  'seleziona il tuo indirizzo', 'aggiorna posizione', 'お届け先を選択', 'select a shipping address', 'selecciona una dirección',
  'wählen sie eine lieferadresse', 'sélectionnez une adresse', 'seleziona un indirizzo', 'selecione um endereço',
];

/** Link texts after a delivery promise or place ("Details", "Update location"), lower-case. */
export const TRAILING_LINK_TEXTS: readonly string[] = [
  'details', 'ver detalhes', 'ver detalles', 'siehe details', 'details anzeigen', 'en savoir plus', 'voir les détails',
  'maggiori informazioni', 'dettagli', 'más información', 'mais informações', '詳細', 'update location', 'atualizar local',
  'actualizar ubicación', 'standort aktualisieren', 'mettre à jour la position', 'aggiorna posizione', 'learn more',
];

/** Buy-box grid labels of one row that names both the shipper and the seller (lower-case). */
export const SHIPPER_SELLER_LABELS: readonly string[] = [
  'shipper / seller', 'shipper/seller', 'ships from and sold by', 'dispatched from and sold by', 'versand und verkauf', 'verkauf und versand',
  'expédié et vendu par', 'vendu et expédié par', 'expéditeur / vendeur', 'vendido y enviado por', 'enviado y vendido por', 'remitente / vendedor',
  'vendido e enviado por', 'enviado e vendido por', 'venduto e spedito da', 'spedito e venduto da', '出荷元 / 販売元', '出荷元/販売元',
];

/** Buy-box grid labels of the "Ships from" row (lower-case; "Delivered by" is not one). */
export const SHIPS_FROM_LABELS: readonly string[] = [
  'ships from', 'dispatched from', 'shipper', 'enviado por', 'enviado de', 'envío desde', 'enviado desde', 'envío', 'enviado', 'versand',
  'expédié par', 'expédition', 'expéditeur', 'spedito da', 'spedizione', '出荷元', '発送元',
];

/** Buy-box grid labels of the "Sold by" row (lower-case). */
export const SOLD_BY_LABELS: readonly string[] = [
  'sold by', 'seller', 'vendido por', 'vendido', 'vendedor', 'verkäufer', 'verkauf durch', 'vendu par', 'vendeur', 'venduto da', 'venditore', '販売元',
];

/**
 * `#merchant-info` sentences: [pattern, which groups are the seller and the ships-from]. Lower-cased
 * text is matched; names are cut from the original text at the same offsets.
 */
export const MERCHANT_SENTENCES: ReadonlyArray<{ re: RegExp; seller: number; shipsFrom: number | 'same' }> = [
  { re: /^(?:ships from and sold by|dispatched from and sold by|verkauf und versand durch|versand und verkauf durch|enviado y vendido por|enviado e vendido por|vendido y enviado por|vendido e enviado por|expédié et vendu par|vendu et expédié par|venduto e spedito da|spedito e venduto da)\s+(.+?)\.?$/, seller: 1, shipsFrom: 'same' },
  { re: /^(?:sold by|verkauf durch|vendido por|vendu par|venduto da)\s+(.+?)\s+(?:and fulfilled by|and dispatched by|und versand durch|y gestionado por|y enviado por|e enviado por|e enviado pela|et expédié par|e spedito da)\s+(.+?)\.?$/, seller: 1, shipsFrom: 2 },
  { re: /^(?:ships from|dispatched from|versand durch|enviado por|enviado desde|expédié par|spedito da)\s+(.+?)\s+(?:and sold by|und verkauf durch|y vendido por|e vendido por|et vendu par|e venduto da)\s+(.+?)\.?$/, seller: 2, shipsFrom: 1 },
  { re: /この商品は、\s*(.+?)\s*が販売、発送します。?$/, seller: 1, shipsFrom: 'same' },
];

/** Names of the marketplaces' own retail sellers (lower-case): the buy box's `sold_by_amazon`. */
export const AMAZON_RETAIL_SELLERS: readonly string[] = [
  'amazon', 'amazon.com', 'amazon.ca', 'amazon.co.uk', 'amazon.de', 'amazon.fr', 'amazon.it', 'amazon.es', 'amazon.com.br',
  'amazon.com.mx', 'amazon.co.jp', 'amazon.com.au', 'amazon eu s.à r.l.', 'amazon eu sarl', 'amazon eu s.a.r.l.',
  'amazon media eu s.à r.l.', 'amazon export sales llc', 'amazon us', 'amazon servicos de varejo do brasil ltda',
  'amazon digital services', 'amazon digital services llc', 'amazon digital services, inc.', 'amazon digital services inc.',
];

/**
 * Packaging notes after the merchant's name in a merchant sentence ("Ships from and sold by Amazon.com in
 * easy-to-open packaging", "… in certified Frustration-Free Packaging"): not part of the name (lower-case).
 */
export const PACKAGING_NOTES: readonly RegExp[] = [/\s+in (?:certified )?frustration-free packaging$/, /\s+in easy-to-open packaging$/];

/**
 * `#availability` phrases per status (lower-case, matched anywhere in the line), checked in this order:
 * back order, pre-order, out of stock, low stock, in stock. Languages: en, de, fr, it, es, pt, ja, nl, pl,
 * sv, tr. A later status may share words with an earlier one ("Temporarily out of stock" holds "out of
 * stock", "No disponible" holds "disponible"): the order decides.
 */
export const AVAILABILITY_PHRASES = {
  back_order: [
    // "In stock on July 23, 2013. Order it now.": orderable now, stock later.
    'in stock on ', 'temporarily out of stock', 'vorübergehend nicht auf lager', 'temporairement en rupture', 'temporaneamente non disponibile',
    'temporaneamente esaurito', 'temporalmente sin stock', 'temporalmente agotado', 'temporariamente fora de estoque',
    'temporariamente esgotado', 'temporariamente indisponível', '一時的に在庫切れ', 'tijdelijk niet op voorraad', 'tymczasowo niedostępny',
    'chwilowo niedostępny', 'tillfälligt slut', 'geçici olarak stokta yok',
  ],
  preorder: [
    'pre-order', 'preorder', 'vorbestellbar', 'erscheint am', 'précommande', 'paraîtra le', 'preordinalo', 'prenotalo', 'disponible para reserva',
    'saldrá a la venta', 'pré-venda', 'pré-encomenda', 'será lançado', '予約', '発売予定', 'will be released on', 'vooruitbestellen', 'przedsprzedaż',
    'förbeställ', 'ön sipariş',
  ],
  out_of_stock: [
    'currently unavailable', 'currently not available', 'derzeit nicht verfügbar', 'nicht auf lager', 'actuellement indisponible',
    'rupture de stock', 'attualmente non disponibile', 'non disponibile', 'no disponible', 'agotado', 'sin stock', 'não disponível',
    'indisponível', 'esgotado', 'out of stock', '現在お取り扱いできません', '現在在庫切れ', '在庫切れ', 'niet op voorraad',
    'momenteel niet verkrijgbaar', 'niedostępny', 'inte tillgänglig', 'slut i lager', 'mevcut değil', 'stokta yok',
  ],
  in_stock: [
    'in stock', 'available instantly', 'sofort verfügbar', 'disponible immédiatement', 'disponible al instante', 'auf lager', 'en stock', 'em estoque', 'em stock', 'disponibilità immediata', 'disponibile', '在庫あり', 'op voorraad',
    'w magazynie', 'i lager', 'stokta var',
  ],
} as const;

/**
 * A whole `#availability` line (lower-case, without its closing full stop) that says in stock in one
 * word: "Disponible.", "Verfügbar.", "Disponível". Only the whole line counts: the same word starts
 * lines that promise a later date ("Disponible dans 1 à 2 semaines").
 */
export const IN_STOCK_WHOLE_LINES: readonly string[] = [
  'available', 'disponible', 'disponível', 'disponibile', 'verfügbar', 'sofort lieferbar', 'auf lager', 'dostępny', 'beschikbaar', 'tillgänglig',
  'mevcut', '在庫あり', '在庫有り',
];

/** "Only 3 left in stock" in each language: the first group is the number of units. */
export const LOW_STOCK_PATTERNS: readonly RegExp[] = [
  /only (\d+) left in stock/, /nur noch (\d+) (?:auf lager|vorrätig|stück|verfügbar)/, /il ne reste plus que (\d+)/, /plus que (\d+) (?:exemplaire|en stock)/,
  /s[oó]lo queda\(?n?\)? (\d+)/, /quedan (\d+) (?:en stock|unidad)/,
  /solo (\d+) rimast/, /rimangono solo (\d+)/, /solo (\d+) (?:pezz|disponibil|con disponibilit)/,
  /apenas (\d+) (?:em estoque|unidade|restante)/, /restam apenas (\d+)/, /só restam (\d+)/, /s[óo] (\d+) em estoque/,
  /残り(\d+)点/, /nog (?:maar )?(\d+) (?:op voorraad|beschikbaar)/, /został[ao]? (?:tylko )?(\d+)/, /(?:endast|bara) (\d+) kvar/,
  /stokta sadece (\d+)/, /son (\d+) (?:adet|ürün)/,
];

/** Coupon words (lower-case): a promotion message is a coupon only when it names one. */
export const COUPON_WORDS: readonly string[] = ['coupon', 'cupón', 'cupão', 'cupom', 'gutschein', 'buono', 'クーポン'];

/** Phrases of a Prime signal in the featured offer's price or delivery lines (lower-case). */
export const PRIME_PHRASES: readonly string[] = [
  'with amazon prime', 'mit amazon prime', 'avec amazon prime', 'con amazon prime', 'com amazon prime', 'join prime to buy', 'prime members get free', 'free shipping for prime members', 'prime member price', 'für prime-mitglieder',
  'pour les membres prime', 'per i clienti prime', 'para miembros prime', 'para membros prime', 'prime会員',
];
