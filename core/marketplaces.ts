/**
 * The 12 supported marketplaces (api-spec.md "Marketplaces", product-page-contract.md table).
 * Codes are case-insensitive; aliases `us`, `usa` -> `com`, `gb` -> `uk`.
 */
export interface Marketplace {
  /** Marketplace code as used on the API (`com`, `uk`, `de`, ...). */
  code: MarketplaceCode;
  /** Host of the product pages, e.g. `www.amazon.de`. */
  domain: string;
  /** ISO 4217 currency of prices on this marketplace. */
  currency: string;
  /** Main language (POSIX locale, e.g. `de_DE`). */
  language: string;
  /** Accept-Language header pinned for reads of this marketplace. */
  acceptLanguage: string;
}

export const MARKETPLACE_CODES = ['com', 'uk', 'de', 'fr', 'it', 'es', 'ca', 'jp', 'in', 'mx', 'br', 'au'] as const;
export type MarketplaceCode = (typeof MARKETPLACE_CODES)[number];

const table: Record<MarketplaceCode, Omit<Marketplace, 'code'>> = {
  com: { domain: 'www.amazon.com', currency: 'USD', language: 'en_US', acceptLanguage: 'en-US,en;q=0.9' },
  uk: { domain: 'www.amazon.co.uk', currency: 'GBP', language: 'en_GB', acceptLanguage: 'en-GB,en;q=0.9' },
  de: { domain: 'www.amazon.de', currency: 'EUR', language: 'de_DE', acceptLanguage: 'de-DE,de;q=0.9' },
  fr: { domain: 'www.amazon.fr', currency: 'EUR', language: 'fr_FR', acceptLanguage: 'fr-FR,fr;q=0.9' },
  it: { domain: 'www.amazon.it', currency: 'EUR', language: 'it_IT', acceptLanguage: 'it-IT,it;q=0.9' },
  es: { domain: 'www.amazon.es', currency: 'EUR', language: 'es_ES', acceptLanguage: 'es-ES,es;q=0.9' },
  ca: { domain: 'www.amazon.ca', currency: 'CAD', language: 'en_CA', acceptLanguage: 'en-CA,en;q=0.9' },
  jp: { domain: 'www.amazon.co.jp', currency: 'JPY', language: 'ja_JP', acceptLanguage: 'ja-JP,ja;q=0.9' },
  in: { domain: 'www.amazon.in', currency: 'INR', language: 'en_IN', acceptLanguage: 'en-IN,en;q=0.9' },
  mx: { domain: 'www.amazon.com.mx', currency: 'MXN', language: 'es_MX', acceptLanguage: 'es-MX,es;q=0.9' },
  br: { domain: 'www.amazon.com.br', currency: 'BRL', language: 'pt_BR', acceptLanguage: 'pt-BR,pt;q=0.9' },
  au: { domain: 'www.amazon.com.au', currency: 'AUD', language: 'en_AU', acceptLanguage: 'en-AU,en;q=0.9' },
};

/** Aliases accepted besides the 12 codes and the code each means (api-spec.md "Marketplaces"). */
const aliases = { us: 'com', usa: 'com', gb: 'uk' } as const satisfies Record<string, MarketplaceCode>;

/** The aliases, in the spec's order. */
export const MARKETPLACE_ALIASES = Object.keys(aliases) as (keyof typeof aliases)[];

/** All marketplaces in the spec's order. */
export const MARKETPLACES: readonly Marketplace[] = MARKETPLACE_CODES.map((code) => ({ code, ...table[code] }));

/**
 * Resolves a marketplace code or alias, case-insensitively.
 * @returns the marketplace, or `undefined` when the code is not one of the 12 (the caller answers 40502).
 */
export function resolveMarketplace(input: string): Marketplace | undefined {
  const key = input.trim().toLowerCase();
  const code = ((aliases as Record<string, MarketplaceCode>)[key] ?? key) as MarketplaceCode;
  return Object.hasOwn(table, code) ? { code, ...table[code] } : undefined;
}

/** The marketplace code whose domain suffix follows `amazon.` (`co.uk` -> `uk`); used by the fixture manifest. */
export function marketplaceByDomainSuffix(suffix: string): Marketplace | undefined {
  return MARKETPLACES.find((m) => m.domain === `www.amazon.${suffix}`);
}

/** Canonical product page URL of an ASIN (product-page-contract.md: `url`). */
export function canonicalProductUrl(marketplace: Marketplace, asin: string): string {
  return `https://${marketplace.domain}/dp/${asin.toUpperCase()}`;
}

/** The 12 marketplaces: `{ code, domain, currency, language, aliases }`. */
export function marketplaceRows() {
  return MARKETPLACES.map((m) => ({
    code: m.code,
    domain: m.domain,
    currency: m.currency,
    language: m.language,
    aliases: MARKETPLACE_ALIASES.filter((alias) => resolveMarketplace(alias)?.code === m.code),
  }));
}
