/** The webhook delivery log (newest first, all kinds or one) with a Redeliver button on each event. */
import { useState } from 'preact/hooks';
import { graphql, request } from '../graphql.ts';
import { when } from '../components/format.ts';
import { ErrorNote } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const DeliveryLog = graphql(`
  query DeliveryLog($kind: WebhookKind) {
    webhookDeliveries(first: 50, kind: $kind) {
      edges { node { id eventId kind url attempt outcome httpStatus latencyMs error createdAt redelivery taskId subscriptionId } }
    }
  }
`);

const Redeliver = graphql(`mutation Redeliver($eventId: ID!) { redeliverWebhook(eventId: $eventId) { eventId url } }`);

const KINDS = ['postback', 'pingback', 'change'] as const;

export function Deliveries() {
  const [kind, setKind] = useState<(typeof KINDS)[number] | ''>('');
  const log = useQuery(DeliveryLog, kind ? { kind } : {}, [kind]);
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<Error>();
  const redeliver = async (eventId: string) => {
    try {
      const r = (await request(Redeliver, { eventId })).redeliverWebhook;
      setNote(`Redelivery of ${r.eventId} to ${r.url} started.`);
      setError(undefined);
      setTimeout(() => void log.reload(), 1_000);
    } catch (e) {
      setError(e as Error);
    }
  };
  const edges = log.data?.webhookDeliveries.edges ?? [];
  return (
    <>
      <h2>Webhook deliveries</h2>
      <label for="delivery-kind">Kind</label>{' '}
      <select id="delivery-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
        <option value="">all</option>
        {KINDS.map((k) => <option value={k}>{k}</option>)}
      </select>{' '}
      <button type="button" id="deliveries-refresh" onClick={() => void log.reload()} disabled={log.loading}>Refresh</button>
      <ErrorNote error={log.error ?? error} />
      {note ? <p role="status">{note}</p> : null}
      {log.data && edges.length === 0 ? <p class="muted" data-testid="no-delivery">No delivery{kind ? ` of kind ${kind}` : ''} yet.</p> : null}
      {edges.length ? (
        <table data-testid="delivery-table">
          <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">URL</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Latency</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {edges.map(({ node: d }) => (
              <tr key={d.id}>
                <td>{when(d.createdAt)}</td><td>{d.kind}{d.redelivery ? ' (redelivery)' : ''}</td><td>{d.url}</td><td>{d.attempt}</td>
                <td>{d.outcome}{d.httpStatus ? ` ${d.httpStatus}` : ''}{d.error ? ` — ${d.error}` : ''}</td><td>{d.latencyMs} ms</td>
                <td>{d.eventId ? <button type="button" onClick={() => void redeliver(d.eventId!)} aria-label={`Redeliver event ${d.eventId}`}>Redeliver</button> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
