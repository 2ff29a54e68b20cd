// Customers: search by name, page through them, create one.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { useAction, usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, onSubmit, Pager, Section, Table, Time } from '../ui/parts.tsx';
import { go, href } from '../ui/router.ts';

export function Customers() {
  const [q, setQ] = useState('');
  const list = usePaged(
    async (after) => {
      const page = await adminApi.get('/admin/v1/customers', { query: { limit: 20, ...(q ? { q } : {}), ...(after ? { after } : {}) } });
      return { items: page.data, next: page.next_after ?? undefined };
    },
    [q],
  );
  const create = useAction((name: string, external_reference: string) =>
    adminApi.post('/admin/v1/customers', { body: { name, ...(external_reference ? { external_reference } : {}) } }),
  );
  return (
    <>
      <h1>Customers</h1>
      <Section title="Find a customer">
        <form role="search" class="inline" onSubmit={onSubmit(({ q: text }) => setQ(text ?? ''))}>
          <Field label="Name contains">
            <input name="q" type="search" defaultValue={q} />
          </Field>
          <button type="submit">Search</button>
        </form>
        {list.error ? <ErrorNote error={list.error} /> : null}
        {list.loading && list.items.length === 0 ? (
          <Loading what="customers" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>{q ? `No customer's name contains “${q}”.` : 'No customers yet: create the first below.'}</Empty>
        ) : (
          <Table
            caption="Customers"
            rows={list.items}
            rowKey={(c) => c.id}
            columns={[
              { label: 'Name', cell: (c) => <a href={href('operator', 'customers', c.id)}>{c.name}</a> },
              { label: 'Id', cell: (c) => <code>{c.id}</code> },
              { label: 'Reference', cell: (c) => c.external_reference ?? <span class="muted">—</span> },
              { label: 'Status', cell: (c) => <Badge value={c.status} /> },
              { label: 'Created', cell: (c) => <Time at={c.created_at} /> },
            ]}
          />
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
      <Section title="New customer">
        <form
          aria-label="New customer"
          onSubmit={onSubmit(async ({ name, external_reference }) => {
            const created = await create.run(name ?? '', external_reference ?? '');
            if (created) go('operator', 'customers', created.id);
          })}
        >
          <Field label="Name">
            <input name="name" required maxLength={200} />
          </Field>
          <Field label="External reference" hint="Optional: your CRM id or tenant slug (unique).">
            <input name="external_reference" maxLength={200} />
          </Field>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.busy}>
            Create customer
          </button>
        </form>
      </Section>
    </>
  );
}
