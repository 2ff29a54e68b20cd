// What a plan's customers, or one customer, pay for each model, with the rule that chose each
// price, beside what each route costs upstream (GET /admin/v1/prices).
import { adminApi } from '../api/session.ts';
import { useLoad } from '../ui/hooks.ts';
import { ErrorNote, Loading, Section, Table } from '../ui/parts.tsx';
import { PriceText, ruleText } from '../ui/prices.tsx';

export function ModelPrices({ title, whose, refreshKey }: { title: string; whose: { plan_id?: string; customer_id?: string }; refreshKey?: unknown }) {
  const prices = useLoad(() => adminApi.get('/admin/v1/prices', { query: whose }), [whose.plan_id, whose.customer_id, refreshKey]);
  const list = prices.data;
  return (
    <Section title={title}>
      <ErrorNote error={prices.error} />
      {!list ? (
        prices.loading ? (
          <Loading what="prices" />
        ) : null
      ) : (
        <Table
          caption={title}
          rows={list.data}
          rowKey={(m) => m.model}
          columns={[
            { label: 'Model', cell: (m) => <code>{m.model}</code> },
            { label: 'Price', cell: (m) => <PriceText price={m.price} currency={list.currency} /> },
            { label: 'Priced by', cell: (m) => ruleText(m.price_rule) },
            {
              label: 'Upstream cost',
              cell: (m) => (
                <ul class="plain">
                  {m.routes.map((r) => (
                    <li key={r.provider}>
                      <code>{r.provider}</code>: {r.cost ? <PriceText price={r.cost} currency={list.currency} /> : <span class="muted">no cost set</span>}
                    </li>
                  ))}
                </ul>
              ),
            },
          ]}
        />
      )}
    </Section>
  );
}
