/**
 * Products: the account's observed products (those of its completed tasks, newest first, one row
 * per ASIN and marketplace), searched by ASIN or title; any ASIN can be opened directly.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql } from '../graphql.ts';
import { money, when } from '../components/format.ts';
import { MarketplaceSelect } from '../components/MarketplaceSelect.tsx';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const ObservedProducts = graphql(`
  query ObservedProducts {
    tasks(status: completed, first: 100) {
      edges { node { id product { asin marketplace title imageUrl observedAt price { amount currency } } } }
    }
  }
`);

export function Products() {
  const { data, error, loading } = useQuery(ObservedProducts, {});
  const [search, setSearch] = useState('');
  const [asin, setAsin] = useState('');
  const [marketplace, setMarketplace] = useState('com');
  const { route } = useLocation();
  const seen = new Map<string, NonNullable<NonNullable<typeof data>['tasks']['edges'][number]['node']['product']>>();
  for (const { node } of data?.tasks.edges ?? []) {
    if (node.product && !seen.has(`${node.product.marketplace}/${node.product.asin}`)) seen.set(`${node.product.marketplace}/${node.product.asin}`, node.product);
  }
  const needle = search.trim().toLowerCase();
  const rows = [...seen.values()].filter((p) => !needle || p.asin.toLowerCase().includes(needle) || (p.title ?? '').toLowerCase().includes(needle));
  return (
    <section>
      <h1>Products</h1>
      <form class="inline" onSubmit={(e) => { e.preventDefault(); route(`/app/products/${marketplace}/${asin.trim().toUpperCase()}`); }}>
        <label for="open-asin">Open ASIN</label>
        <input id="open-asin" value={asin} onInput={(e) => setAsin(e.currentTarget.value)} pattern="[A-Za-z0-9]{10}" required placeholder="B07CL39Z8Q" />
        <MarketplaceSelect id="open-marketplace" value={marketplace} onChange={setMarketplace} />
        <button type="submit">Open</button>
      </form>
      <label for="product-search">Search observed products</label>
      <input id="product-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} placeholder="ASIN or words of the title" />
      {loading && !data ? <Loading what="products" /> : <ErrorNote error={error} />}
      {data && rows.length === 0 ? <p class="muted">No observed product matches.</p> : null}
      <ul class="product-list" data-testid="product-list">
        {rows.map((p) => (
          <li key={`${p.marketplace}/${p.asin}`}>
            {p.imageUrl ? <img src={p.imageUrl} alt="" width={48} /> : null}
            <a href={`/app/products/${p.marketplace}/${p.asin}`}>{p.title ?? p.asin}</a>
            <span class="muted"> {p.asin} · {p.marketplace} · {p.price ? money(p.price.amount, p.price.currency) : 'no price'} · {when(p.observedAt)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
