// The catalogue's models and current prices (the public price list), and a reload of the file.
import { adminApi, anonymousApi } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { ErrorNote, Loading, Section, Table, Time } from '../ui/parts.tsx';
import { PriceText, quotaText } from '../ui/prices.tsx';

export function Catalogue() {
  const prices = useLoad(() => anonymousApi.get('/v1/models/pricing', {}), []);
  const reload = useAction(() => adminApi.post('/admin/v1/catalogue/reload', {}));
  const list = prices.data;
  return (
    <>
      <h1>Catalogue</h1>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={reload.busy}
          onClick={async () => {
            if (await reload.run()) prices.reload();
          }}
        >
          Reload the catalogue file
        </button>
        {reload.result ? (
          <span role="status">
            {reload.result.status === 'reloaded' ? 'Reloaded' : 'Unchanged'}: {reload.result.models} models, loaded <Time at={reload.result.loaded_at} />
            {reload.result.price_versions_created.length ? `, new prices for ${reload.result.price_versions_created.map((p) => p.model).join(', ')}` : ''}.
          </span>
        ) : null}
      </div>
      <ErrorNote error={reload.error ?? prices.error} />
      <Section title="Models and prices">
        {!list ? (
          prices.loading ? (
            <Loading what="prices" />
          ) : null
        ) : (
          <Table
            caption="Models and prices"
            rows={list.data}
            rowKey={(m) => m.model}
            columns={[
              { label: 'Model', cell: (m) => <code>{m.model}</code> },
              { label: 'Group', cell: (m) => m.group },
              { label: 'Price', cell: (m) => <PriceText price={m.price} currency={list.currency} /> },
              { label: 'Version', class: 'num', cell: (m) => String(m.price_version) },
              { label: 'Context', class: 'num', cell: (m) => (m.context_window === null ? '—' : m.context_window.toLocaleString()) },
              { label: 'Free quota', cell: (m) => quotaText(m.free_quota) },
            ]}
          />
        )}
      </Section>
    </>
  );
}
