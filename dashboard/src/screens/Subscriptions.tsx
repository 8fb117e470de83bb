/**
 * Subscriptions: the caller's monitoring subscriptions (products, and keywords, which open on
 * their ranks under Keywords) with their alert rules and state, a form
 * to create one or edit one (frequency, alert URL, rules), delete, and the webhook delivery log.
 * Subscriptions pause by themselves while the balance cannot pay a delivery (`paused_balance`) and
 * resume on top-up; the API has no pause of its own (api-spec.md "Subscription").
 */
import { useState } from 'preact/hooks';
import { graphql, request } from '../graphql.ts';
import { when } from '../components/format.ts';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';
import { Deliveries } from './Deliveries.tsx';
import { isProductRule, SubscriptionForm, type SubscriptionDraft } from './SubscriptionForm.tsx';

const SubscriptionList = graphql(`
  query SubscriptionList {
    subscriptions(first: 100) {
      totalCount
      edges { node { id asin keyword marketplace frequency status tag alertUrl createdAt alerts { id type value armed triggeredCount lastTriggeredAt } } }
    }
  }
`);

const DeleteSubscription = graphql(`
  mutation DeleteSubscription($id: Int!) { deleteSubscriptions(subscriptions: [{ id: $id }]) { results { statusCode statusMessage } } }
`);

export function Subscriptions() {
  const list = useQuery(SubscriptionList, {});
  const [error, setError] = useState<Error>();
  const [editing, setEditing] = useState<SubscriptionDraft>();
  const remove = async (id: number, asin: string) => {
    if (!confirm(`Delete the subscription of ${asin}? Its delivered observations stay in history.`)) return;
    try {
      const result = (await request(DeleteSubscription, { id })).deleteSubscriptions.results[0];
      setError(result && result.statusCode >= 40000 ? new Error(result.statusMessage) : undefined);
    } catch (e) {
      setError(e as Error);
    }
    await list.reload();
  };
  return (
    <section>
      <h1>Subscriptions</h1>
      <SubscriptionForm key={editing ? `${editing.marketplace}/${editing.asin}` : 'new'} editing={editing} onSaved={() => { setEditing(undefined); void list.reload(); }} />
      {editing ? <button type="button" onClick={() => setEditing(undefined)}>Cancel the edit</button> : null}
      <h2>Your subscriptions</h2>
      <p class="muted">A keyword subscription opens on its ranks under <a href="/app/keywords">Keywords</a>.</p>
      {list.loading && !list.data ? <Loading what="subscriptions" /> : null}
      <ErrorNote error={list.error ?? error} />
      {list.data?.subscriptions.totalCount === 0 ? <p class="muted">No subscription yet.</p> : null}
      <table data-testid="subscription-table">
        <thead><tr><th scope="col">ASIN</th><th scope="col">Market</th><th scope="col">Frequency</th><th scope="col">Status</th><th scope="col">Alert rules</th><th scope="col">Alert URL</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {list.data?.subscriptions.edges.map(({ node: s }) => (
            <tr key={s.id}>
              <td>{s.asin ? <a href={`/app/products/${s.marketplace}/${s.asin}`}>{s.asin}</a> : <a href={`/app/keywords/${s.id}`}>“{s.keyword ?? ''}”</a>}</td>
              <td>{s.marketplace}</td><td>{s.frequency}</td>
              <td title={s.status === 'paused_balance' ? 'Paused while the balance cannot pay a delivery; resumes on top-up.' : undefined}>{s.status}</td>
              <td>
                <ul class="rules">
                  {s.alerts.map((a) => <li>{a.type}{a.value !== null ? ` ${a.value}` : ''} · {a.armed ? 'armed' : 'fired'} · {a.triggeredCount}×{a.lastTriggeredAt ? `, last ${when(a.lastTriggeredAt)}` : ''}</li>)}
                </ul>
              </td>
              <td>{s.alertUrl ?? '—'}</td>
              <td>{when(s.createdAt)}</td>
              <td>
                <span class="inline">
                  {s.asin ? <button type="button" onClick={() => setEditing({ asin: s.asin!, marketplace: s.marketplace, frequency: s.frequency, alertUrl: s.alertUrl ?? '', rules: s.alerts.flatMap((a) => (isProductRule(a.type) ? [{ type: a.type, value: a.value === null ? '' : String(a.value) }] : [])) })} aria-label={`Edit the subscription of ${s.asin} (${s.marketplace})`}>Edit</button> : null}
                  <button type="button" onClick={() => void remove(s.id, s.asin ?? `“${s.keyword ?? ''}”`)} aria-label={`Delete the subscription of ${s.asin ?? s.keyword} (${s.marketplace})`}>Delete</button>
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Deliveries />
    </section>
  );
}
