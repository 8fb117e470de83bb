/**
 * Products: the account's observed products (`observedProducts`: the newest observation it holds
 * of each ASIN and marketplace, newest first), searched by ASIN or title words as the user types
 * (a new request 250 ms after the last keystroke); any ASIN can be opened directly.
 */
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql } from '../graphql.ts';
import { money, when } from '../components/format.ts';
import { MarketplaceSelect } from '../components/MarketplaceSelect.tsx';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const ObservedProducts = graphql(`
  query ObservedProducts($search: String) {
    observedProducts(search: $search, first: 100) { asin marketplace title imageUrl observedAt price { amount currency } }
  }
`);

export function Products() {
  const [search, setSearch] = useState('');
  const [searched, setSearched] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearched(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const { data, error, loading } = useQuery(ObservedProducts, searched ? { search: searched } : {}, [searched]);
  const [asin, setAsin] = useState('');
  const [marketplace, setMarketplace] = useState('com');
  const { route } = useLocation();
  const rows = data?.observedProducts ?? [];
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
      {data && rows.length === 0 ? <p class="muted">{searched ? 'No observed product matches.' : 'No observed product yet: post a task.'}</p> : null}
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
