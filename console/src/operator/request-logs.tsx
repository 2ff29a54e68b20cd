// Every customer's requests, with the filters the API has, paged by its `before` cursor; billable
// requests by default.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { endSoFar, localInputToIso } from '../ui/format.ts';
import { usePaged } from '../ui/hooks.ts';
import { billableOf, LogTable, ShowField } from '../ui/log-table.tsx';
import { Empty, ErrorNote, Field, Loading, onSubmit, Pager, Section } from '../ui/parts.tsx';

export function RequestLogs() {
  const [filter, setFilter] = useState<Record<string, string>>({ show: 'billable' });
  const list = usePaged(
    async (before) => {
      const query = {
        limit: 50,
        customer_id: filter.customer_id || undefined,
        model: filter.model || undefined,
        endpoint: filter.endpoint || undefined,
        billable: billableOf(filter.show),
        from: localInputToIso(filter.from ?? ''),
        to: endSoFar(localInputToIso(filter.to ?? '')),
        before,
      };
      const page = await adminApi.get('/admin/v1/request-logs', { query });
      return { items: page.data, next: page.next_before ?? undefined };
    },
    [filter],
  );
  return (
    <>
      <h1>Request logs</h1>
      <Section title="Filters">
        <form class="inline" aria-label="Request log filters" onSubmit={onSubmit((fields) => setFilter(fields))}>
          <Field label="Customer id">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <Field label="Model">
            <input name="model" placeholder="sandbox/claude-haiku" />
          </Field>
          <ShowField />
          <Field label="Endpoint" hint="An operationId, e.g. messages_create">
            <input name="endpoint" pattern="[a-z][a-z0-9_]{0,99}" />
          </Field>
          <Field label="Logged from (your time)" hint="When each row was written, once its request ended">
            <input name="from" type="datetime-local" />
          </Field>
          <Field label="Logged before (your time)">
            <input name="to" type="datetime-local" />
          </Field>
          <button type="submit">Apply</button>
        </form>
      </Section>
      <Section title="Requests">
        <ErrorNote error={list.error} />
        {list.loading && list.items.length === 0 ? (
          <Loading what="requests" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>No request matches.</Empty>
        ) : (
          <LogTable rows={list.items} operator />
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
    </>
  );
}
