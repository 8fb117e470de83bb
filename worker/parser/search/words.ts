/**
 * The words of search result pages the search readers recognise, per language (en, de, fr, it, es,
 * pt, ja, and the zh_TW interface amazon.com offers). Lower-case; compared against cleaned, lower-cased
 * card text. Words shared with product pages live in `../locale.ts`.
 */

/** The sponsored label's words ("Sponsored", "Gesponsert", …). */
export const SPONSORED_WORDS: readonly string[] = [
  'sponsored', 'gesponsert', 'sponsorisé', 'sponsorisée', 'sponsorizzato', 'patrocinado', 'patrocinados', 'スポンサー', '贊助', '赞助',
];

/** "No results for …" notices (the whole page answers no result for the keyword). */
export const NO_RESULTS_PHRASES: readonly string[] = [
  'no results for', 'keine ergebnisse für', 'aucun résultat pour', 'nessun risultato per', 'no hay resultados para',
  'nenhum resultado para', 'の検索に一致する商品はありませんでした', '検索結果はありませんでした', 'did not match any products',
  'ergab keine treffer', 'ne correspond à aucun article', 'non ha prodotto alcun risultato', 'no ha coincidido con ningún producto',
  'não corresponde a nenhum produto',
];

/** Count words that stand for a number ("one result for …"). */
export const COUNT_WORDS: Readonly<Record<string, number>> = {
  one: 1, ein: 1, eins: 1, un: 1, une: 1, uno: 1, una: 1, um: 1, uma: 1,
};

/**
 * Labels of a struck-through price that are the same offer's former or list price ("List:",
 * "Typical:", "Was:", "RRP:", "UVP:", "M.R.P:", …), lower-case without the colon.
 */
export const LIST_PRICE_LABELS: readonly string[] = [
  'list', 'list price', 'digital list price', 'typical', 'typical price', 'was', 'rrp', 'suggested retail price', 'm.r.p', 'mrp',
  'uvp', 'statt', 'unverb. preisempf', 'prix conseillé', 'ancien prix', 'prezzo consigliato', 'prezzo precedente',
  'recomendado', 'mediano', 'pvpr', 'precio anterior', 'de', 'preço de lista', '参考価格', '定価', '過去価格', '定價', '典型',
];

/**
 * Labels of a struck price that belongs to another product or format (the printed edition's price
 * beside an e-book, a new unit's price beside a renewed one): never the card's list price.
 */
export const OTHER_PRODUCT_PRICE_LABELS: readonly string[] = [
  'print list price', 'prix livre imprimé', 'prix du livre imprimé', 'preço de capa', 'novo preço', 'precio de la versión impresa',
  'gedruckter listenpreis', 'prezzo di copertina', '紙の本の価格',
];

/** Words of a price that is paid in instalments ("12x de R$ 99"), never the price or list price. */
export const INSTALLMENT_PATTERN = /\b\d+\s*x\s*(?:de\b|sem juros)|em até|parcelas?|cuotas|mensualidades/i;

/** "Rent" offers (a rental is not the price to pay for the item). */
export const RENT_WORDS: readonly string[] = ['to rent', 'mieten', 'à louer', 'para alquilar', 'para alugar', 'da noleggiare'];

/**
 * "N+ bought in past month" in each language. Group 1: the number as shown (with a K / mil / 万 unit
 * when compact, read by `boughtCount`).
 */
export const BOUGHT_PATTERNS: readonly RegExp[] = [
  /([\d.,]+\s*[kKmM]?)\+?\s*bought in past month/,
  /(?:mehr als\s*)?([\d.,]+\s*[kKmM]?)\+?\s*(?:mal\s*)?im letzten monat gekauft/i,
  /([\d.,]+\s*[kKmM]?)\+?\s*achetés? au cours du mois dernier/i,
  /([\d.,]+\s*[kKmM]?)\+?\s*(?:comprados|vendidos) el mes pasado/i,
  /(?:mais de\s*)?([\d.,]+\s*(?:[kKmM]|mil)?)\+?\s*compras? no mês passado/i,
  /([\d.,]+\s*[kKmM]?)\+?\s*acquistati il mese scorso/i,
  /過去1か月で([\d,]+\s*(?:万)?)点以上購入/,
  /過去一個月有\s*([\d,]+\s*(?:[kK]|千|萬)?)\s*個以上顧客購買/,
];

/** Coupon wording (lower-case): a coupon component's text is a coupon only when it names one. */
export const CARD_COUPON_WORDS: readonly string[] = [
  'coupon', 'cupón', 'cupão', 'cupom', 'gutschein', 'coupon', 'buono', 'クーポン', 'voucher', '優惠券',
];

/** Coupon-component texts that are not a coupon (Subscribe & Save first-order discounts). */
export const NOT_COUPON_PHRASES: readonly string[] = [
  'subscription order', 'first subscription', 'spar-abo', 'abonnement', 'suscripción', 'assinatura', '定期おトク便',
];

/** Delivery-row texts that are not a delivery line (release dates, unavailability). */
export const NOT_DELIVERY_PHRASES: readonly string[] = [
  'saldrá a la venta', 'no disponible', 'currently unavailable', 'derzeit nicht verfügbar', 'actuellement indisponible',
  'non disponibile', 'não disponível', 'will be released', 'erscheint am', 'sortie prévue', 'only ', 'left in stock',
  'nur noch', 'in stock on', 'auf lager', 'solo quedan', '残り',
];

/** Prime wording in a card's offer rows ("FREE delivery … with Prime", "Join Prime …", "Exclusive Prime price"). */
export const CARD_PRIME_PHRASES: readonly string[] = [
  'with prime', 'join prime', 'prime price', 'prime members', 'prime-mitglieder', 'mit prime', 'avec prime', 'membres prime',
  'con prime', 'clienti prime', 'miembros prime', 'com prime', 'membros prime', 'prime会員', 'プライム会員',
];

/** Lines of a "price shown only as other offers" row ("(3 used & new offers)", "More Buying Choices"). */
export const OTHER_OFFERS_PHRASES: readonly string[] = [
  'used & new offers', 'new & used offers', 'used & new', 'new offers', 'used offers', 'more buying choices',
  'weitere angebote', 'autres vendeurs', 'autres offres', 'altre offerte', 'otras ofertas', 'outras ofertas',
  'その他の出品', 'offers', 'angebote',
];

/** The star phrase of amazon.com's zh_TW interface ("4.3 顆星，最高 5 顆星"); group 1: the average. */
export const RATING_ZH = /(\d(?:\.\d{1,2})?)\s*顆星[，,]?\s*最高\s*5\s*顆星/;

/**
 * How a delivery line begins on layouts without a delivery block (before 2021): delivery dates ("Get it
 * by …", "Recíbelo …"), free shipping or delivery ("FREE Shipping by Amazon", "FREE One-Day"), a
 * shipping cost ("+ $0.55 shipping", "$3.99 shipping"), "Eligible for Shipping to <country>", a
 * cut-off ("Order in the next 23 hours to get it by …") and digital items' "Available instantly …".
 */
export const DELIVERY_LINES: readonly RegExp[] = [
  /^get it\b/i,
  /^free\b.*\b(?:shipping|delivery|one-day|two-day|same-day)\b/i,
  /^\+?\s*\D{0,3}\s?\d[\d.,]*\s?\D{0,3}\s+(?:shipping|delivery)\b/i,
  /^eligible for shipping\b/i,
  /^order (?:in|within) the next\b/i,
  /^available instantly\b/i,
  /^arrives\b/i,
  /^(?:recíbelo|envío gratis|entrega gratis)/i,
  /^(?:gratis-?|kostenlose\s)?(?:lieferung|versand)\b/i,
  /^(?:livraison|recevez-le)\b/i,
  /^(?:consegna|ricevilo)\b/i,
  /^(?:receba|frete grátis|entrega)\b/i,
  /お届け|配送料無料/,
];

/** A shipping cost ending a price row ("$29.99 + $0.55 shipping"); group 1: "+ $0.55 shipping". */
export const SHIPPING_COST_TAIL = /(\+\s*\D{0,3}\s?\d[\d.,]*\s?\D{0,3}\s+shipping)$/i;

/** A card that offers no featured offer to buy ("No featured offers available", "See options" alone). */
export const NO_FEATURED_OFFER_PHRASES: readonly string[] = ['no featured offers available', 'see options'];

/** "Bought in past month" wording without a readable number (the line is shown but not read). */
export const BOUGHT_WORDS: readonly string[] = [
  'bought in past month', 'im letzten monat gekauft', 'au cours du mois dernier', 'el mes pasado', 'no mês passado',
  'il mese scorso', '過去1か月で', '過去一個月',
];
