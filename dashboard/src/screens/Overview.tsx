/**
 * Overview: balance, spend today and over 30 days (chart of the daily cost), tasks by status,
 * the number of subscriptions, and the newest change alerts of the subscriptions' rules (the 3 newest
 * of each of the first 100 subscriptions, the 10 newest of those shown).
 */
import { graphql } from '../graphql.ts';
import { Chart } from '../components/Chart.tsx';
import { count, usd, when } from '../components/format.ts';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const OverviewQuery = graphql(`
  query Overview {
    me {
      balance plan
      usage { today { cost tasks requests } thisMonth { cost tasks } }
      usageReport { totals { cost tasks } days { date cost } }
    }
    queued: tasks(status: queued, first: 1) { totalCount }
    running: tasks(status: running, first: 1) { totalCount }
    completed: tasks(status: completed, first: 1) { totalCount }
    failed: tasks(status: failed, first: 1) { totalCount }
    subscriptions(first: 100) {
      totalCount
      edges { node { id asin marketplace changeEvents(first: 3) { edges { node { eventId ruleType createdAt before { price { amount currency } bsrRank } after { price { amount currency } bsrRank } } } } } }
    }
  }
`);

export function Overview() {
  const { data, error, loading } = useQuery(OverviewQuery, {});
  if (!data) return <section><h1>Overview</h1>{loading ? <Loading what="the overview" /> : <ErrorNote error={error} />}</section>;
  const { me } = data;
  const alerts = data.subscriptions.edges
    .flatMap(({ node }) => node.changeEvents.edges.map(({ node: e }) => ({ ...e, asin: node.asin, marketplace: node.marketplace })))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, 10);
  const side = (s: (typeof alerts)[number]['before']) => (s.price ? `${s.price.amount} ${s.price.currency}` : s.bsrRank !== null ? `#${s.bsrRank}` : '—');
  return (
    <section>
      <h1>Overview</h1>
      <ErrorNote error={error} />
      <div class="tiles">
        <div class="tile"><h2>Balance</h2><p class="figure" data-testid="overview-balance">{usd(me.balance)}</p><p class="muted">{me.plan} plan</p></div>
        <div class="tile"><h2>Spend today</h2><p class="figure">{usd(me.usage.today.cost)}</p><p class="muted">{count(me.usage.today.tasks)} tasks, {count(me.usage.today.requests)} requests</p></div>
        <div class="tile"><h2>Spend, 30 days</h2><p class="figure">{usd(me.usageReport.totals.cost)}</p><p class="muted">{count(me.usageReport.totals.tasks)} tasks</p></div>
        <div class="tile"><h2>Subscriptions</h2><p class="figure" data-testid="overview-subscriptions">{count(data.subscriptions.totalCount)}</p><p class="muted"><a href="/app/subscriptions">manage</a></p></div>
      </div>
      <h2>Tasks by status</h2>
      <dl class="statuses" data-testid="tasks-by-status">
        {(['queued', 'running', 'completed', 'failed'] as const).map((s) => <div><dt>{s}</dt><dd>{count(data[s].totalCount)}</dd></div>)}
      </dl>
      <Chart title="Spend per day, last 30 days (USD)" label="cost" points={me.usageReport.days.map((d) => [`${d.date}T00:00:00Z`, d.cost])} color="#7c3aed" />
      <h2>Recent change alerts</h2>
      {alerts.length === 0 ? <p class="muted">No change alert yet.</p> : (
        <table data-testid="change-alerts">
          <thead><tr><th scope="col">When</th><th scope="col">Product</th><th scope="col">Rule</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
          <tbody>
            {alerts.map((a) => (
              <tr key={a.eventId}>
                <td>{when(a.createdAt)}</td>
                <td><a href={`/app/products/${a.marketplace}/${a.asin}`}>{a.asin}</a> ({a.marketplace})</td>
                <td>{a.ruleType}</td><td>{side(a.before)}</td><td>{side(a.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
