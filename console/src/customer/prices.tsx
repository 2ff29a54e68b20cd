// The prices this key pays: the price list at its customer's plan or own overrides, with the rule
// that chose each price (GET /v1/models/pricing with the key).
import { publicApi } from '../api/session.ts';
import { useLoad } from '../ui/hooks.ts';
import { ErrorNote, Loading, Section, Table } from '../ui/parts.tsx';
import { PriceText, quotaText, ruleText } from '../ui/prices.tsx';

export function Prices() {
  const prices = useLoad(() => publicApi.get('/v1/models/pricing', {}), []);
  const list = prices.data;
  return (
    <>
      <h1>Prices</h1>
      <ErrorNote error={prices.error} />
      <Section title="Your prices">
        {!list ? (
          prices.loading ? (
            <Loading what="prices" />
          ) : null
        ) : (
          <Table
            caption="Your prices"
            rows={list.data}
            rowKey={(m) => m.model}
            columns={[
              { label: 'Model', cell: (m) => <code>{m.model}</code> },
              { label: 'Price', cell: (m) => <PriceText price={m.price} currency={list.currency} /> },
              { label: 'Priced by', cell: (m) => ruleText(m.price_rule) },
              { label: 'Version', class: 'num', cell: (m) => String(m.price_version) },
              { label: 'Free quota', cell: (m) => quotaText(m.free_quota) },
            ]}
          />
        )}
      </Section>
    </>
  );
}
