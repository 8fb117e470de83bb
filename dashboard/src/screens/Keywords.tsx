/**
 * Keywords: the caller's keyword subscriptions (monitoring subscriptions of kind `search`), each
 * with its marketplace, pages read per run, frequency, status and tracked ASINs, and where each
 * tracked ASIN stood in the subscription's latest delivered run (`latestRanks`: its organic rank
 * over the pages read, search-page-contract.md "API" Monitoring). Free: the subscription's own
 * deliveries, which the account paid for. A keyword opens on its KeywordPage.
 */
import { graphql } from '../graphql.ts';
import { when } from '../components/format.ts';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const KeywordList = graphql(`
  query KeywordList {
    subscriptions(first: 100, kind: search) {
      totalCount
      edges { node { id keyword marketplace pages frequency status trackAsins latestRanks { asin observedAt organicRank sponsored } } }
    }
  }
`);

/** An organic rank as shown: `#12`, or `absent` when the ASIN was on none of the pages read. */
export function rankText(rank: number | null): string {
  return rank === null ? 'absent' : `#${rank}`;
}

export function Keywords() {
  const { data, error, loading } = useQuery(KeywordList, {});
  const rows = data?.subscriptions.edges.map((e) => e.node) ?? [];
  return (
    <section>
      <h1>Keywords</h1>
      <p class="muted">Keyword subscriptions read a keyword's results pages on their schedule; add one with <code>monitoring/add</code> and a <code>keyword</code>.</p>
      {loading && !data ? <Loading what="keyword subscriptions" /> : null}
      <ErrorNote error={error} />
      {data && rows.length === 0 ? <p class="muted" data-testid="no-keywords">No keyword subscription yet.</p> : null}
      {rows.length ? (
        <table data-testid="keyword-table">
          <thead>
            <tr><th scope="col">Keyword</th><th scope="col">Market</th><th scope="col">Pages</th><th scope="col">Frequency</th><th scope="col">Status</th><th scope="col">Tracked ASINs: latest organic rank</th><th scope="col">Ranks as of</th></tr>
          </thead>
          <tbody>
            {rows.map((s) => {
              const ranks = new Map(s.latestRanks.map((r) => [r.asin, r]));
              return (
                <tr key={s.id} data-keyword={s.keyword}>
                  <td><a href={`/app/keywords/${s.id}`}>{s.keyword}</a></td>
                  <td>{s.marketplace}</td><td>{s.pages}</td><td>{s.frequency}</td>
                  <td title={s.status === 'paused_balance' ? 'Paused while the balance cannot pay a delivery; resumes on top-up.' : undefined}>{s.status}</td>
                  <td>
                    {s.trackAsins.length === 0 ? <span class="muted">none tracked</span> : (
                      <ul class="rules" data-testid="tracked">
                        {s.trackAsins.map((asin) => {
                          const r = ranks.get(asin);
                          return (
                            <li key={asin} data-asin={asin}>
                              {asin}: {r ? <strong>{rankText(r.organicRank)}</strong> : <span class="muted">not read yet</span>}
                              {r?.sponsored ? ' · sponsored slot' : ''}
                            </li>
                          );
                        })}
                      </ul>
                    )}
                  </td>
                  <td>{when(s.latestRanks[0]?.observedAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
