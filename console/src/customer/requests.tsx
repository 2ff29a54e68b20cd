// The customer's request log with the API's filters, paged by its `after` cursor. Billable requests
// by default: the free reads (this console's own calls among them) only when asked for.
import { useState } from 'preact/hooks';
import { publicApi } from '../api/session.ts';
import { endSoFar, localInputToIso } from '../ui/format.ts';
import { usePaged } from '../ui/hooks.ts';
import { billableOf, LogTable, ShowField } from '../ui/log-table.tsx';
import { Empty, ErrorNote, Field, Loading, onSubmit, Pager, Section } from '../ui/parts.tsx';

export function Requests() {
  const [filter, setFilter] = useState<Record<string, string>>({ show: 'billable' });
  const list = usePaged(
    async (after) => {
      const query = {
        limit: 50,
        model: filter.model || undefined,
        key_id: filter.key_id || undefined,
        endpoint: filter.endpoint || undefined,
        billable: billableOf(filter.show),
        status: filter.status ? Number(filter.status) : undefined,
        from: localInputToIso(filter.from ?? ''),
        to: endSoFar(localInputToIso(filter.to ?? '')),
        after,
      };
      const page = await publicApi.get('/v1/requests', { query });
      return { items: page.data, next: page.has_more ? (page.last_id ?? undefined) : undefined };
    },
    [filter],
  );
  return (
    <>
      <h1>Requests</h1>
      <Section title="Filters">
        <form class="inline" aria-label="Request filters" onSubmit={onSubmit((fields) => setFilter(fields))}>
          <Field label="Model">
            <input name="model" placeholder="sandbox/claude-haiku" />
          </Field>
          <ShowField />
          <Field label="Endpoint" hint="An operation, e.g. messages_create">
            <input name="endpoint" pattern="[a-z][a-z0-9_]{0,99}" />
          </Field>
          <Field label="Key id">
            <input name="key_id" placeholder="key_…" />
          </Field>
          <Field label="HTTP status">
            <input name="status" type="number" min="100" max="599" />
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
      <Section title="Your requests">
        <ErrorNote error={list.error} />
        {list.loading && list.items.length === 0 ? (
          <Loading what="requests" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>No request matches.</Empty>
        ) : (
          <LogTable rows={list.items} operator={false} />
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
    </>
  );
}
