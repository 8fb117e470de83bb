/**
 * One keyword subscription: where its tracked ASINs stood over 30, 90 or 180 days (`rankHistory`
 * per tracked ASIN: the organic position and the sponsored slot of each read, drawn as two series
 * per ASIN, 1 at the top, a gap where the ASIN was absent), and the latest stored results page of
 * the keyword (`search`) as a table, tracked ASINs marked. Positions are those of the page the ASIN
 * was found on: each results page numbers from 1 (search-page-contract.md "Item fields"). Each
 * rank history read is charged at the plan's history rate, once per tracked ASIN and window shown;
 * the latest results page is free.
 */
import { useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { money, usd, when } from '../components/format.ts';
import { RankChart, type RankSeries } from '../components/RankChart.tsx';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQueries, useQuery } from '../components/use-query.ts';

const KeywordSubscription = graphql(`
  query KeywordSubscription($id: Int!) {
    subscription(id: $id) { id kind keyword marketplace pages frequency status trackAsins }
  }
`);

const KeywordRanks = graphql(`
  query KeywordRanks($keyword: String!, $marketplace: String!, $asin: String!, $days: Int!) {
    rankHistory(keyword: $keyword, marketplace: $marketplace, asin: $asin, days: $days) { cost points { observedAt page position organicPosition sponsored } }
  }
`);

const KeywordResults = graphql(`
  query KeywordResults($keyword: String!, $marketplace: String!, $page: Int!) {
    search(keyword: $keyword, marketplace: $marketplace, page: $page) {
      observedAt page status totalResults resultsText
      items { position organicPosition sponsored asin title price { amount currency } rating ratingsCount badges }
    }
  }
`);

const WINDOWS = [30, 90, 180] as const;
/** One colour per tracked ASIN (its organic line and its sponsored points), cycling past ten. */
const COLORS = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#dc2626', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

type RankPoints = { observedAt: string; position: number | null; organicPosition: number | null; sponsored: boolean | null }[];

/** The reads of every ASIN as one time axis (oldest first) and two series per ASIN, organic and sponsored. */
function rankSeries(asins: string[], histories: RankPoints[]): { instants: string[]; series: RankSeries[] } {
  const instants = [...new Set(histories.flatMap((h) => h.map((p) => p.observedAt)))].sort();
  const series = asins.flatMap((asin, i): RankSeries[] => {
    const byInstant = new Map((histories[i] ?? []).map((p) => [p.observedAt, p]));
    const color = COLORS[i % COLORS.length]!;
    return [
      { label: `${asin} organic`, color, values: instants.map((at) => byInstant.get(at)?.organicPosition ?? null) },
      { label: `${asin} sponsored`, color, dashed: true, values: instants.map((at) => { const p = byInstant.get(at); return p?.sponsored ? p.position : null; }) },
    ];
  });
  return { instants, series };
}

export function KeywordPage({ id }: { id: string }) {
  const sub = useQuery(KeywordSubscription, { id: Number(id) }, [id]);
  const s = sub.data?.subscription;
  return (
    <section>
      <h1>Keyword {s?.keyword ? <>“{s.keyword}”</> : null} {s ? <span class="muted">({s.marketplace})</span> : null}</h1>
      <ErrorNote error={sub.error} />
      {sub.loading && !sub.data ? <Loading what="the keyword" /> : null}
      {sub.data && (!s || s.kind !== 'search' || !s.keyword) ? <p class="muted">No keyword subscription {id} in this account. <a href="/app/keywords">All keywords</a></p> : null}
      {s?.kind === 'search' && s.keyword ? <KeywordDetail keyword={s.keyword} marketplace={s.marketplace} pages={s.pages ?? 1} trackAsins={s.trackAsins} summary={`${s.frequency} · ${s.pages ?? 1} page${(s.pages ?? 1) === 1 ? '' : 's'} per run · ${s.status}`} /> : null}
    </section>
  );
}

function KeywordDetail({ keyword, marketplace, pages, trackAsins, summary }: { keyword: string; marketplace: string; pages: number; trackAsins: string[]; summary: string }) {
  const [days, setDays] = useState<number>(30);
  const [page, setPage] = useState(1);
  const ranks = useQueries(KeywordRanks, trackAsins.map((asin) => ({ keyword, marketplace, asin, days })), [keyword, marketplace, trackAsins.join(), days]);
  const results = useQuery(KeywordResults, { keyword, marketplace, page }, [keyword, marketplace, page]);
  const { instants, series } = ranks.data ? rankSeries(trackAsins, ranks.data.map((d) => [...d.rankHistory.points].reverse())) : { instants: [], series: [] };
  const latest = results.data?.search;
  const cost = ranks.data?.reduce((sum, d) => sum + d.rankHistory.cost, 0);
  const tracked = new Set(trackAsins);
  return (
    <>
      <p class="muted">{summary} · tracking {trackAsins.length ? trackAsins.join(', ') : 'no ASIN'}</p>
      <h2>Positions of the tracked ASINs</h2>
      <div role="group" aria-label="Window" class="inline">
        {WINDOWS.map((d) => <button type="button" aria-pressed={d === days} onClick={() => setDays(d)}>{d} days</button>)}
      </div>
      <ErrorNote error={ranks.error} />
      {trackAsins.length === 0 ? <p class="muted">This subscription tracks no ASIN: add <code>track_asins</code> to see their positions.</p> : null}
      {trackAsins.length && ranks.loading && !ranks.data ? <Loading what="the positions" /> : null}
      {ranks.data ? (
        <p class="muted" data-testid="rank-range">
          {instants.length} read{instants.length === 1 ? '' : 's'} in {days} days{instants.length ? <> · {when(instants[0])} to {when(instants.at(-1))}</> : null}
          {pages > 1 ? ' · positions are those of the page the ASIN was on (each page numbers from 1)' : ''}
        </p>
      ) : null}
      {cost !== undefined && trackAsins.length ? <p class="muted" data-testid="read-cost">This view was charged {usd(cost)} (one rank history read per tracked ASIN at your plan's history rate).</p> : null}
      {ranks.data && trackAsins.length ? <RankChart title={`Organic (solid) and sponsored (dashed) positions, ${days} days`} instants={instants} series={series} /> : null}
      <h2>Latest results</h2>
      {pages > 1 ? (
        <div role="group" aria-label="Results page" class="inline">
          {Array.from({ length: pages }, (_, i) => i + 1).map((n) => <button type="button" aria-pressed={n === page} onClick={() => setPage(n)}>Page {n}</button>)}
        </div>
      ) : null}
      <ErrorNote error={results.error} />
      {results.loading && !results.data ? <Loading what="the latest results" /> : null}
      {results.data && !latest ? <p class="muted" data-testid="no-results-stored">No stored read of page {page} of this keyword yet.</p> : null}
      {latest ? (
        <>
          <p class="muted" data-testid="results-line">
            Page {latest.page} read {when(latest.observedAt)} · {latest.status === 'no_results' ? 'no results' : `${latest.items.length} results shown`}
            {latest.resultsText ? <> · “{latest.resultsText}”</> : null}
          </p>
          <table data-testid="result-table">
            <thead>
              <tr><th scope="col">Position</th><th scope="col">Organic</th><th scope="col">Sponsored</th><th scope="col">ASIN</th><th scope="col">Title</th><th scope="col">Price</th><th scope="col">Rating</th><th scope="col">Badges</th></tr>
            </thead>
            <tbody>
              {latest.items.map((item) => (
                <tr key={item.position} class={tracked.has(item.asin) ? 'tracked' : undefined} data-asin={item.asin}>
                  <td>{item.position}</td>
                  <td>{item.organicPosition ?? '—'}</td>
                  <td>{item.sponsored ? 'sponsored' : ''}</td>
                  <td><a href={`/app/products/${marketplace}/${item.asin}`}>{item.asin}</a>{tracked.has(item.asin) ? <strong> (tracked)</strong> : null}</td>
                  <td>{item.title ?? '—'}</td>
                  <td>{item.price ? money(item.price.amount, item.price.currency) : '—'}</td>
                  <td>{item.rating !== null ? `${item.rating}★${item.ratingsCount !== null ? ` (${item.ratingsCount})` : ''}` : '—'}</td>
                  <td>{item.badges.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </>
  );
}
