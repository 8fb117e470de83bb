/** A labelled select of the 12 marketplaces (the `marketplaces` query). */
import { graphql } from '../graphql.ts';
import { useQuery } from './use-query.ts';

const Marketplaces = graphql(`query Marketplaces { marketplaces { code domain } }`);

export function MarketplaceSelect({ id, value, onChange }: { id: string; value: string; onChange(code: string): void }) {
  const { data } = useQuery(Marketplaces, {});
  const codes = data?.marketplaces ?? [{ code: value, domain: value }];
  return (
    <>
      <label for={id}>Marketplace</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {codes.map((m) => <option value={m.code}>{m.code} ({m.domain})</option>)}
      </select>
    </>
  );
}
