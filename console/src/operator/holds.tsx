// Holds on balances: pending, stale (their process is gone), resolved; a pending request hold can
// be settled or released by hand.
import { useState } from 'preact/hooks';
import { adminApi, type AdminSchemas } from '../api/session.ts';
import { usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, Money, onSubmit, Pager, Section, Time } from '../ui/parts.tsx';
import { ResolveForm } from './resolve-form.tsx';

type Reservation = AdminSchemas['Reservation'];
type Status = 'pending' | 'settled' | 'released';

export function Holds() {
  const [filter, setFilter] = useState<{ status?: Status; stale?: boolean; customer_id?: string }>({ status: 'pending' });
  const list = usePaged(
    async (before) => {
      const page = await adminApi.get('/admin/v1/reservations', { query: { limit: 50, ...filter, ...(before ? { before } : {}) } });
      return { items: page.data, next: page.next_before ?? undefined };
    },
    [filter],
  );
  return (
    <>
      <h1>Holds</h1>
      <Section title="Filters">
        <form
          class="inline"
          aria-label="Hold filters"
          onSubmit={onSubmit(({ status, stale, customer_id }) =>
            setFilter({ ...(status ? { status: status as Status } : {}), ...(stale ? { stale: true } : {}), ...(customer_id ? { customer_id } : {}) }),
          )}
        >
          <Field label="Status">
            <select name="status">
              <option value="pending">pending</option>
              <option value="">any</option>
              <option value="settled">settled</option>
              <option value="released">released</option>
            </select>
          </Field>
          <label class="choice">
            <input type="checkbox" name="stale" value="true" /> Only stale (owner process gone)
          </label>
          <Field label="Customer id">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <button type="submit">Apply</button>
        </form>
      </Section>
      <Section title="Holds">
        <ErrorNote error={list.error} />
        {list.loading && list.items.length === 0 ? (
          <Loading what="holds" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>No hold matches.</Empty>
        ) : (
          <ul class="items">
            {list.items.map((hold) => (
              <HoldItem key={hold.ref} hold={hold} onResolved={list.reload} />
            ))}
          </ul>
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
    </>
  );
}

function HoldItem({ hold, onResolved }: { hold: Reservation; onResolved: () => void }) {
  return (
    <li class="item" aria-label={`Hold ${hold.ref}`}>
      <div>
        <code>{hold.ref}</code> <Badge value={hold.kind} /> <Badge value={hold.status} /> {hold.owner_alive ? null : <Badge value="owner gone" />}
      </div>
      <p class="meta">
        <Money amount={hold.amount} /> held for <code>{hold.customer_id}</code> since <Time at={hold.created_at} />
        {hold.delivered ? (
          <span>
            {' '}
            · delivered at last checkpoint <Money amount={hold.delivered} />
          </span>
        ) : null}
        {hold.resolved_at ? (
          <span>
            {' '}
            · resolved <Time at={hold.resolved_at} />
          </span>
        ) : null}
      </p>
      {hold.status === 'pending' && hold.kind === 'request' ? (
        <details>
          <summary>Resolve</summary>
          <ResolveForm
            label={`Resolve hold ${hold.ref}`}
            amountHint="Settle only; empty: what the owner last reported delivered."
            resolve={(r) => adminApi.post('/admin/v1/reservations/{ref}/resolve', { path: { ref: hold.ref }, body: r })}
            onDone={onResolved}
          />
        </details>
      ) : hold.status === 'pending' ? (
        <p class="hint">
          {hold.kind === 'video' ? 'Resolved through its video task (Video tasks).' : 'A credit grant: its process gives it back, or the sweeper ends it.'}
        </p>
      ) : null}
    </li>
  );
}
