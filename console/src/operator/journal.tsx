// A customer's journal: every money movement, newest first, paged by the API's `before` cursor.
import { adminApi } from '../api/session.ts';
import { usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Loading, Money, Pager, Section, Table, Time } from '../ui/parts.tsx';

export function Journal({ customerId, refreshKey }: { customerId: string; refreshKey?: number }) {
  const list = usePaged(
    async (before) => {
      const page = await adminApi.get('/admin/v1/customers/{customer_id}/ledger', {
        path: { customer_id: customerId },
        query: { limit: 20, ...(before ? { before } : {}) },
      });
      return { items: page.data, next: page.next_before ?? undefined };
    },
    [customerId, refreshKey],
  );
  return (
    <Section title="Journal">
      <ErrorNote error={list.error} />
      {list.loading && list.items.length === 0 ? (
        <Loading what="the journal" />
      ) : list.items.length === 0 && !list.error ? (
        <Empty>No journal entries yet.</Empty>
      ) : (
        <Table
          caption="Journal entries"
          rows={list.items}
          rowKey={(e) => e.id}
          columns={[
            { label: 'When', cell: (e) => <Time at={e.created_at} /> },
            { label: 'Kind', cell: (e) => <Badge value={e.kind} /> },
            { label: 'Amount', class: 'num', cell: (e) => <Money amount={e.amount} /> },
            { label: 'Reference', cell: (e) => <code>{e.reference}</code> },
            { label: 'For', cell: (e) => (e.reservation_ref ? <code>{e.reservation_ref}</code> : <span class="muted">—</span>) },
          ]}
        />
      )}
      <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
    </Section>
  );
}
