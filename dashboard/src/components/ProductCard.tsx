/** The latest observation of a product: image, title, price, BSR with sub-ranks, rating, variants, details. */
import { graphql, type ResultOf } from '../graphql.ts';
import { count, money, when } from './format.ts';

export const ProductFields = graphql(`
  fragment ProductFields on Product {
    asin marketplace url observedAt status title byline variant imageUrl rating ratingsCount
    price { amount currency }
    bsr { category rank subcategories { category rank } }
    variants { asin name }
    details { label value }
  }
`);

export type ProductData = ResultOf<typeof ProductFields>;

export function ProductCard({ product }: { product: ProductData }) {
  return (
    <article class="product-card" data-testid="product-card">
      {product.imageUrl ? <img src={product.imageUrl} alt={product.title ?? product.asin} width={160} /> : null}
      <div>
        <h2>{product.title ?? product.asin}</h2>
        <p class="muted">
          {product.asin} · {product.marketplace} · observed {when(product.observedAt)} · {product.status}
          {product.byline.length ? <> · by {product.byline.join(', ')}</> : null}
        </p>
        <dl class="facts">
          <dt>Price</dt><dd data-testid="price">{product.price ? money(product.price.amount, product.price.currency) : '—'}</dd>
          <dt>Best Sellers Rank</dt>
          <dd data-testid="bsr">
            {product.bsr ? <>#{count(product.bsr.rank)} in {product.bsr.category}
              {product.bsr.subcategories.length ? (
                <ul>{product.bsr.subcategories.map((s) => <li>#{count(s.rank)} in {s.category}</li>)}</ul>
              ) : null}</> : '—'}
          </dd>
          <dt>Rating</dt><dd>{product.rating !== null ? `${product.rating} / 5 (${count(product.ratingsCount ?? 0)} ratings)` : '—'}</dd>
          {product.variant ? <><dt>Variant</dt><dd>{product.variant}</dd></> : null}
        </dl>
        {product.variants.length ? (
          <details>
            <summary>{product.variants.length} variants</summary>
            <ul>{product.variants.map((v) => <li><a href={`/app/products/${product.marketplace}/${v.asin}`}>{v.name}</a> ({v.asin})</li>)}</ul>
          </details>
        ) : null}
        {product.details.length ? (
          <details>
            <summary>{product.details.length} details</summary>
            <dl class="details">{product.details.map((d) => <><dt>{d.label}</dt><dd>{d.value}</dd></>)}</dl>
          </details>
        ) : null}
      </div>
    </article>
  );
}
