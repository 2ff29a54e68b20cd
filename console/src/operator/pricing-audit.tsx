// The audit of a plan's or a customer's pricing: who changed what, when, and what it was before
// and after (GET /admin/v1/pricing-audit), newest first.
import { adminApi, type AdminSchemas } from '../api/session.ts';
import { usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Loading, Pager, Section, Table, Time } from '../ui/parts.tsx';

/** A side of a change in one line: a plan's version, multiplier and overrides, or a customer's plan and overrides. */
function summary(state: AdminSchemas['PricingAuditEntry']['old']): string {
  if (!state) return '—';
  const overrides = Array.isArray(state.overrides) ? `${state.overrides.length} override(s)` : '';
  if ('version' in state)
    return [`version ${String(state.version)}`, state.name, state.multiplier ? `× ${String(state.multiplier)}` : 'list prices', overrides].join(' · ');
  return [state.plan_id ? `plan ${String(state.plan_id)}` : 'no plan', overrides].join(' · ');
}

export function PricingAudit({ subjectId, refreshKey }: { subjectId: string; refreshKey?: unknown }) {
  const list = usePaged(
    async (before) => {
      const page = await adminApi.get('/admin/v1/pricing-audit', { query: { subject_id: subjectId, limit: 20, ...(before ? { before } : {}) } });
      return { items: page.data, next: page.next_before ?? undefined };
    },
    [subjectId, refreshKey],
  );
  return (
    <Section title="Pricing changes">
      <ErrorNote error={list.error} />
      {list.loading && list.items.length === 0 ? (
        <Loading what="the audit" />
      ) : list.items.length === 0 ? (
        <Empty>No change yet.</Empty>
      ) : (
        <Table
          caption="Pricing changes"
          rows={list.items}
          rowKey={(e) => e.id}
          columns={[
            { label: 'When', cell: (e) => <Time at={e.created_at} /> },
            { label: 'What', cell: (e) => <Badge value={e.action} /> },
            { label: 'Who', cell: (e) => e.actor },
            { label: 'Before', cell: (e) => summary(e.old) },
            { label: 'After', cell: (e) => summary(e.new) },
          ]}
        />
      )}
      <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
    </Section>
  );
}
