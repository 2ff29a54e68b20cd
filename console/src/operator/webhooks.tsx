// Webhook deliveries (issue 28): every signed webhook the gateway sent or is retrying, newest
// first, by customer and status, each with the log of its attempts. Paged by the API's `before`.
import { useState } from 'preact/hooks';
import { adminApi, type AdminSchemas } from '../api/session.ts';
import { usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, onSubmit, Pager, Section, Table, Time } from '../ui/parts.tsx';

type Delivery = AdminSchemas['WebhookDelivery'];
type Status = Delivery['status'];

export function WebhookDeliveries() {
  const [filter, setFilter] = useState<{ customer_id?: string; status?: Status }>({});
  const list = usePaged(
    async (before) => {
      const page = await adminApi.get('/admin/v1/webhook-deliveries', { query: { limit: 20, ...filter, ...(before ? { before } : {}) } });
      return { items: page.data, next: page.next_before ?? undefined };
    },
    [filter],
  );
  return (
    <>
      <h1>Webhooks</h1>
      <Section title="Filters">
        <form
          class="inline"
          aria-label="Webhook filters"
          onSubmit={onSubmit(({ customer_id, status }) =>
            setFilter({ ...(customer_id ? { customer_id } : {}), ...(status ? { status: status as Status } : {}) }),
          )}
        >
          <Field label="Customer id">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <Field label="Status">
            <select name="status">
              <option value="">any</option>
              <option value="pending">pending</option>
              <option value="delivered">delivered</option>
              <option value="failed">failed</option>
            </select>
          </Field>
          <button type="submit">Apply</button>
        </form>
      </Section>
      <Section title="Deliveries">
        <ErrorNote error={list.error} />
        {list.loading && list.items.length === 0 ? (
          <Loading what="deliveries" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>No webhook matches.</Empty>
        ) : (
          <ul class="items">
            {list.items.map((d) => (
              <DeliveryItem key={d.id} delivery={d} />
            ))}
          </ul>
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
    </>
  );
}

function DeliveryItem({ delivery: d }: { delivery: Delivery }) {
  return (
    <li class="item" aria-label={`Webhook ${d.id}`}>
      <div>
        <code>{d.type}</code> <Badge value={d.status} /> <code>{d.customer_id}</code>
      </div>
      <p class="meta">
        <code>{d.id}</code> · to <code>{d.url}</code> · created <Time at={d.created_at} /> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
        {d.delivered_at ? (
          <span>
            {' '}
            · delivered <Time at={d.delivered_at} />
          </span>
        ) : null}
        {d.status === 'pending' && d.next_attempt_at ? (
          <span>
            {' '}
            · next attempt <Time at={d.next_attempt_at} />
          </span>
        ) : null}
      </p>
      {d.last_error ? <p class="meta">Last error: {d.last_error}</p> : null}
      <details>
        <summary>Attempts and payload</summary>
        {d.log.length === 0 ? (
          <p class="muted">Not attempted yet.</p>
        ) : (
          <Table
            caption={`Attempts of ${d.id}`}
            rows={d.log}
            rowKey={(a) => String(a.attempt)}
            columns={[
              { label: 'Attempt', class: 'num', cell: (a) => String(a.attempt) },
              { label: 'When', cell: (a) => <Time at={a.at} /> },
              { label: 'To', cell: (a) => (a.url ? <code>{a.url}</code> : <span class="muted">—</span>) },
              { label: 'Answer', cell: (a) => (a.status === null ? <span class="muted">none</span> : <Badge value={a.status} />) },
              { label: 'Answer began', cell: (a) => (a.body ? <code>{a.body}</code> : <span class="muted">—</span>) },
              { label: 'Error', cell: (a) => a.error ?? <span class="muted">—</span> },
              { label: 'Took', class: 'num', cell: (a) => `${a.ms} ms` },
            ]}
          />
        )}
        <pre class="payload">{JSON.stringify(d.payload, null, 2)}</pre>
      </details>
    </li>
  );
}
