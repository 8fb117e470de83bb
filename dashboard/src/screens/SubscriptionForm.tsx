/**
 * Creates a subscription with its alert rules, or edits one (addSubscriptions: the same ASIN and
 * marketplace again updates frequency, alert URL and rules; a rule given again keeps its state).
 */
import { useState } from 'preact/hooks';
import { graphql, request } from '../graphql.ts';
import { MarketplaceSelect } from '../components/MarketplaceSelect.tsx';

const AddSubscription = graphql(`
  mutation AddSubscription($subscription: SubscriptionInput!) {
    addSubscriptions(subscriptions: [$subscription]) { results { statusCode statusMessage subscription { id status } } }
  }
`);

const FREQUENCIES = ['daily', 'every_6h', 'hourly'] as const;
const RULES = ['price_below', 'price_drop_percent', 'bsr_below', 'bsr_change_percent', 'availability_change', 'buy_box_change', 'content_change'] as const;
/** Rule types that take a threshold or percent (api-spec.md "Change alerts"). */
const VALUED = new Set<string>(['price_below', 'price_drop_percent', 'bsr_below', 'bsr_change_percent']);

type Rule = { type: (typeof RULES)[number]; value: string };

/** True for the rule types of product subscriptions (the ones this form edits). */
export function isProductRule(type: string): type is Rule['type'] {
  return (RULES as readonly string[]).includes(type);
}
type Frequency = (typeof FREQUENCIES)[number];

/** A subscription to edit, as the form shows it. */
export interface SubscriptionDraft {
  asin: string;
  marketplace: string;
  frequency: Frequency;
  alertUrl: string;
  rules: Rule[];
}

export function SubscriptionForm({ onSaved, editing }: { onSaved(): void; editing?: SubscriptionDraft }) {
  const [asin, setAsin] = useState(editing?.asin ?? '');
  const [marketplace, setMarketplace] = useState(editing?.marketplace ?? 'com');
  const [frequency, setFrequency] = useState<Frequency>(editing?.frequency ?? 'daily');
  const [alertUrl, setAlertUrl] = useState(editing?.alertUrl ?? '');
  const [rules, setRules] = useState<Rule[]>(editing?.rules ?? []);
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const setRule = (i: number, rule: Partial<Rule>) => setRules(rules.map((r, j) => (j === i ? { ...r, ...rule } : r)));
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setNote(undefined);
    try {
      const alerts = rules.map((r) => ({ type: r.type, ...(VALUED.has(r.type) ? { value: Number(r.value) } : {}) }));
      // Editing sends the URL even when emptied (null: no longer POSTed anywhere).
      const url = alertUrl.trim() ? { alertUrl: alertUrl.trim() } : editing ? { alertUrl: null } : {};
      const subscription = { asin: asin.trim(), marketplace, frequency, alerts, ...url };
      const result = (await request(AddSubscription, { subscription })).addSubscriptions.results[0]!;
      if (result.statusCode >= 40000) setError(result.statusMessage);
      else {
        setNote(`Subscription ${result.subscription?.id} saved (${result.subscription?.status}).`);
        setAsin('');
        setAlertUrl('');
        setRules([]);
        onSaved();
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form onSubmit={submit} class="stack" aria-labelledby="subscription-form">
      <h2 id="subscription-form">{editing ? `Edit the subscription of ${editing.asin} (${editing.marketplace})` : 'New subscription'}</h2>
      <div class="inline">
        <label for="sub-asin">ASIN</label>
        <input id="sub-asin" value={asin} required readOnly={!!editing} onInput={(e) => setAsin(e.currentTarget.value)} />
        <MarketplaceSelect id="sub-marketplace" value={marketplace} onChange={editing ? () => undefined : setMarketplace} />
        <label for="sub-frequency">Frequency</label>
        <select id="sub-frequency" value={frequency} onChange={(e) => setFrequency(e.currentTarget.value as Frequency)}>
          {FREQUENCIES.map((f) => <option value={f}>{f}</option>)}
        </select>
      </div>
      <label for="sub-alert-url">Alert webhook URL (optional)</label>
      <input id="sub-alert-url" type="url" size={50} value={alertUrl} onInput={(e) => setAlertUrl(e.currentTarget.value)} placeholder="https://example.com/hooks/change" />
      <fieldset>
        <legend>Alert rules</legend>
        {rules.map((r, i) => (
          <div class="inline" key={i}>
            <label for={`rule-type-${i}`}>Rule {i + 1}</label>
            <select id={`rule-type-${i}`} value={r.type} onChange={(e) => setRule(i, { type: e.currentTarget.value as Rule['type'] })}>
              {RULES.map((t) => <option value={t}>{t}</option>)}
            </select>
            {VALUED.has(r.type) ? (
              <>
                <label for={`rule-value-${i}`}>Value</label>
                <input id={`rule-value-${i}`} type="number" step="any" required value={r.value} onInput={(e) => setRule(i, { value: e.currentTarget.value })} />
              </>
            ) : null}
            <button type="button" onClick={() => setRules(rules.filter((_, j) => j !== i))} aria-label={`Remove rule ${i + 1}`}>Remove</button>
          </div>
        ))}
        <button type="button" onClick={() => setRules([...rules, { type: 'price_below', value: '' }])} disabled={rules.length >= 10}>Add alert rule</button>
      </fieldset>
      <button type="submit">{editing ? 'Save subscription' : 'Create subscription'}</button>
      {note ? <p role="status" data-testid="subscription-result">{note}</p> : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
    </form>
  );
}
