/** Usage and billing: the ledger of a range of UTC days, per endpoint and per day (usageReport). */
import { useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { Chart } from '../components/Chart.tsx';
import { count, usd } from '../components/format.ts';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const UsageQuery = graphql(`
  query Usage($from: String, $to: String) {
    me {
      balance
      rates { taskPost taskPostHigh live history monitoring }
      usageReport(from: $from, to: $to) {
        from to
        totals { cost tasks requests }
        endpoints { endpoint requests tasks cost }
        days { date cost tasks requests }
      }
    }
  }
`);

const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

export function Usage() {
  const [from, setFrom] = useState(day(29));
  const [to, setTo] = useState(day(0));
  const { data, error, loading } = useQuery(UsageQuery, { from, to }, [from, to]);
  const report = data?.me.usageReport;
  return (
    <section>
      <h1>Usage and billing</h1>
      <div class="inline">
        <label for="usage-from">From</label>
        <input id="usage-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <label for="usage-to">To</label>
        <input id="usage-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </div>
      {loading && !data ? <Loading what="usage" /> : <ErrorNote error={error} />}
      {data ? (
        <p>Balance <strong>{usd(data.me.balance)}</strong>. Rates: task_post {usd(data.me.rates.taskPost)} (high priority {usd(data.me.rates.taskPostHigh)}), live {usd(data.me.rates.live)}, history {usd(data.me.rates.history)}, monitoring {usd(data.me.rates.monitoring)} per delivery.</p>
      ) : null}
      {report ? (
        <>
          <h2>Per endpoint, {report.from} to {report.to}</h2>
          <table data-testid="usage-endpoints">
            <thead><tr><th scope="col">Endpoint</th><th scope="col">Requests</th><th scope="col">Tasks</th><th scope="col">Cost</th></tr></thead>
            <tbody>
              {report.endpoints.map((e) => <tr key={e.endpoint}><td>{e.endpoint}</td><td>{count(e.requests)}</td><td>{count(e.tasks)}</td><td>{usd(e.cost)}</td></tr>)}
            </tbody>
            <tfoot><tr><th scope="row">Total</th><td>{count(report.totals.requests)}</td><td>{count(report.totals.tasks)}</td><td data-testid="usage-total">{usd(report.totals.cost)}</td></tr></tfoot>
          </table>
          <Chart title="Cost per day (USD)" label="daily-cost" points={report.days.map((d) => [`${d.date}T00:00:00Z`, d.cost])} color="#7c3aed" />
        </>
      ) : null}
    </section>
  );
}
