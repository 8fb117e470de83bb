/**
 * Version 2 readers in the marketplaces' languages, on small synthetic lines and pages written here
 * from the contract's rules and the marketplaces' usual wording (never from saved pages).
 */
import { describe, expect, it } from 'vitest';
import { resolveMarketplace } from '../../core/marketplaces.js';
import { parseProductPage } from '../../worker/parser/index.js';
import { availabilityStatus } from '../../worker/parser/stock.js';

describe('availability in each language', () => {
  const cases: Array<[string, string, number | null]> = [
    // in stock
    ['Disponible.', 'in_stock', null], ['Disponible', 'in_stock', null], ['Disponível.', 'in_stock', null], ['Verfügbar.', 'in_stock', null],
    ['Auf Lager.', 'in_stock', null], ['En stock.', 'in_stock', null], ['Disponibile.', 'in_stock', null], ['在庫あり。', 'in_stock', null],
    ['Em estoque', 'in_stock', null], ['Op voorraad.', 'in_stock', null], ['Stokta var.', 'in_stock', null],
    // low stock with its quantity
    ['Solo quedan 2 en stock (hay más unidades en camino).', 'low_stock', 2], ['Nur noch 4 auf Lager (mehr ist unterwegs).', 'low_stock', 4],
    ['Il ne reste plus que 5 exemplaire(s) en stock.', 'low_stock', 5], ['Solo 3 pezzi rimasti', 'low_stock', 3],
    ['Apenas 1 em estoque (mais a caminho).', 'low_stock', 1], ['残り7点(入荷予定あり)', 'low_stock', 7], ['Nog maar 2 op voorraad', 'low_stock', 2],
    ['Endast 3 kvar i lager', 'low_stock', 3], ['Stokta sadece 6 adet kaldı', 'low_stock', 6],
    // out of stock
    ['No disponible por el momento.', 'out_of_stock', null], ['Actualmente no disponible.', 'out_of_stock', null],
    ['Derzeit nicht verfügbar.', 'out_of_stock', null], ['Actuellement indisponible.', 'out_of_stock', null],
    ['Attualmente non disponibile.', 'out_of_stock', null], ['Não disponível.', 'out_of_stock', null],
    ['現在お取り扱いできません。', 'out_of_stock', null], ['Agotado', 'out_of_stock', null], ['Momenteel niet verkrijgbaar.', 'out_of_stock', null],
    // pre-order
    ['Disponible para reservar.', 'preorder', null], ['Dieser Artikel erscheint am 12. März 2026.', 'preorder', null],
    ['Cet article paraîtra le 3 avril 2026.', 'preorder', null], ['Este produto será lançado em 5 de maio de 2026.', 'preorder', null],
    ['この商品は2026/3/12に発売予定です。', 'preorder', null], ['This item will be released on March 12, 2026.', 'preorder', null],
    // back order
    ['Temporalmente sin stock.', 'back_order', null], ['Temporalmente agotado.', 'back_order', null],
    ['Vorübergehend nicht auf Lager.', 'back_order', null], ['Temporairement en rupture de stock.', 'back_order', null],
    ['Temporaneamente non disponibile.', 'back_order', null], ['Temporariamente fora de estoque.', 'back_order', null],
    ['一時的に在庫切れ; 入荷時期は未定です。', 'back_order', null],
  ];
  for (const [text, status, quantity] of cases) {
    it(`${text} -> ${status}`, () => expect(availabilityStatus(text)).toEqual({ status, quantity }));
  }

  it('a line that only starts with an in-stock word stays unknown (a later date is promised)', () => {
    expect(availabilityStatus('Disponible dans 1 à 2 semaines.')).toEqual({ status: 'unknown', quantity: null });
    expect(availabilityStatus('Verfügbar in 1 bis 2 Monaten.')).toEqual({ status: 'unknown', quantity: null });
  });

  it('a page of amazon.es reads its "Disponible." line with the text as shown', () => {
    const html = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><span id="productTitle">T</span>
      <div id="buybox"><div id="availability"><span> Disponible. </span></div></div></body></html>`;
    const r = parseProductPage(html, resolveMarketplace('es')!);
    if (r.kind !== 'product') throw new Error(`expected a product page, got ${r.kind}`);
    expect(r.fields.availability).toEqual({ status: 'in_stock', text: 'Disponible.', quantity: null });
  });
});
