/**
 * One product: its latest stored observation (productHistory, limit 1) and charts of price and
 * BSR rank over 30, 90 or 180 days with their minimum and maximum, and the newest changes (product
 * analytics: stats, series and changes in one `product` field). Both reads are charged at the
 * plan's history rate, once per window shown.
 */
import { useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { Chart } from '../components/Chart.tsx';
import { count, money, usd, when } from '../components/format.ts';
import { ProductCard, ProductFields } from '../components/ProductCard.tsx';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const ProductQuery = graphql(`
  query ProductPage($asin: String!, $marketplace: String!, $days: Int!) {
    productHistory(asin: $asin, marketplace: $marketplace, limit: 1) { cost products { ...ProductFields } }
    product(asin: $asin, marketplace: $marketplace) {
      cost
      stats(window: { days: $days }) {
        observations
        price { min minAt max maxAt avg last currency }
        bsr { min minAt max maxAt avg last }
      }
      series(window: { days: $days }) { currency points { at price bsrRank } }
      changes(window: { days: $days }) { field observedAt before after delta deltaPercent currency }
    }
  }
`, [ProductFields]);

const WINDOWS = [30, 90, 180] as const;

export function ProductPage({ asin, marketplace }: { asin: string; marketplace: string }) {
  const [days, setDays] = useState<number>(90);
  const { data, error, loading } = useQuery(ProductQuery, { asin, marketplace, days }, [asin, marketplace, days]);
  const latest = data?.productHistory.products[0];
  const stats = data?.product?.stats;
  const series = data?.product?.series;
  const changes = (data?.product?.changes ?? []).slice(-10).reverse();
  return (
    <section>
      <h1>Product {asin} <span class="muted">({marketplace})</span></h1>
      <ErrorNote error={error} />
      {loading && !data ? <Loading what="the product" /> : null}
      {data && !latest ? <p class="muted">No stored observation of this product yet: post a task for it.</p> : null}
      {latest ? <ProductCard product={latest} /> : null}
      <h2>History</h2>
      <div role="group" aria-label="Window" class="inline">
        {WINDOWS.map((d) => <button type="button" aria-pressed={d === days} onClick={() => setDays(d)}>{d} days</button>)}
      </div>
      {stats ? (
        <p class="muted" data-testid="stats">
          {count(stats.observations)} observations
          {stats.price ? <> · price min {money(stats.price.min, stats.price.currency)} ({when(stats.price.minAt)}), max {money(stats.price.max, stats.price.currency)} ({when(stats.price.maxAt)})</> : null}
          {stats.bsr ? <> · BSR best #{count(stats.bsr.min)} ({when(stats.bsr.minAt)}), worst #{count(stats.bsr.max)} ({when(stats.bsr.maxAt)})</> : null}
        </p>
      ) : null}
      {data ? <p class="muted" data-testid="read-cost">This view was charged {usd(data.productHistory.cost + (data.product?.cost ?? 0))} (history reads at your plan's rate).</p> : null}
      {series ? (
        <div class="charts">
          <Chart title={`Price (${series.currency ?? 'no price'}), ${days} days`} label="price" points={series.points.map((p) => [p.at, p.price])} />
          <Chart title={`Best Sellers Rank, ${days} days`} label="bsr" points={series.points.map((p) => [p.at, p.bsrRank])} color="#ea580c" invert />
        </div>
      ) : null}
      {changes.length ? (
        <table data-testid="changes">
          <caption>The {changes.length} newest changes of price and rank</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th><th scope="col">Change</th></tr></thead>
          <tbody>
            {changes.map((c) => (
              <tr key={`${c.field}${c.observedAt}`}>
                <td>{when(c.observedAt)}</td><td>{c.field === 'PRICE' ? 'price' : 'rank'}</td>
                <td>{c.before ?? '—'}</td><td>{c.after ?? '—'}{c.field === 'PRICE' && c.currency ? ` ${c.currency}` : ''}</td>
                <td>{c.delta !== null ? `${c.delta > 0 ? '+' : ''}${c.delta}${c.deltaPercent !== null ? ` (${c.deltaPercent}%)` : ''}` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
