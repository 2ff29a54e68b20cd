// One customer: status (suspend / reactivate), wallet and top-up, keys, pricing, journal, spend.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { Badge, ErrorNote, Field, Loading, Money, onSubmit, Section, Time } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';
import { Journal } from './journal.tsx';
import { Keys } from './keys.tsx';
import { AdminExport, SpendReport } from './spend.tsx';
import { AlertsSection } from '../ui/alerts.tsx';
import { CustomerPricing } from './customer-pricing.tsx';

export function CustomerDetail({ id }: { id: string }) {
  const customer = useLoad(() => adminApi.get('/admin/v1/customers/{customer_id}', { path: { customer_id: id } }), [id]);
  const [credited, setCredited] = useState(0); // a top-up reloads the wallet and the journal
  const wallet = useLoad(() => adminApi.get('/admin/v1/customers/{customer_id}/wallet', { path: { customer_id: id } }), [id, credited]);
  const status = useAction((next: 'active' | 'suspended') =>
    adminApi.patch('/admin/v1/customers/{customer_id}', { path: { customer_id: id }, body: { status: next } }),
  );
  const topUp = useAction((amount: string, reference: string) =>
    adminApi.post('/admin/v1/customers/{customer_id}/credits', { path: { customer_id: id }, body: { amount, reference } }),
  );
  const c = customer.data;
  const w = wallet.data;
  return (
    <>
      <p class="crumbs">
        <a href={href('operator', 'customers')}>Customers</a> /
      </p>
      {customer.error ? <ErrorNote error={customer.error} /> : null}
      {!c ? (
        customer.loading ? (
          <Loading what="the customer" />
        ) : null
      ) : (
        <>
          <h1>{c.name}</h1>
          <p class="meta">
            <code>{c.id}</code> <Badge value={(status.result ?? c).status} /> created <Time at={c.created_at} />
            {c.external_reference ? <span> · reference {c.external_reference}</span> : null}
          </p>
          <div class="actions">
            {(status.result ?? c).status === 'active' ? (
              <button type="button" class="danger" disabled={status.busy} onClick={() => void status.run('suspended')}>
                Suspend customer
              </button>
            ) : (
              <button type="button" disabled={status.busy} onClick={() => void status.run('active')}>
                Reactivate customer
              </button>
            )}
            <span class="hint">Suspended: every key of the customer gets 403; nothing else changes.</span>
          </div>
          <ErrorNote error={status.error} />
        </>
      )}
      <Section title="Wallet">
        {wallet.error ? <ErrorNote error={wallet.error} /> : null}
        {w ? (
          <dl class="figures">
            <dt>Available</dt>
            <dd>
              <Money amount={w.available} currency={w.currency} />
            </dd>
            <dt>Reserved</dt>
            <dd>
              <Money amount={w.reserved} currency={w.currency} />
            </dd>
            <dt>Credits</dt>
            <dd>
              <Money amount={w.credits} currency={w.currency} />
            </dd>
            <dt>Debits</dt>
            <dd>
              <Money amount={w.debits} currency={w.currency} />
            </dd>
            <dt>Debt</dt>
            <dd>
              <Money amount={w.debt} currency={w.currency} />
            </dd>
          </dl>
        ) : wallet.loading ? (
          <Loading what="the wallet" />
        ) : null}
        <form
          aria-label="Top up"
          class="inline"
          onSubmit={onSubmit(async ({ amount, reference }, form) => {
            if (await topUp.run(amount ?? '', reference ?? '')) {
              form.reset();
              setCredited((n) => n + 1);
            }
          })}
        >
          <Field label="Top-up amount" hint="Up to 6 decimals, e.g. 10.00">
            <input name="amount" required inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,6})?" />
          </Field>
          <Field label="Reference" hint="Your invoice or payment id: the same reference never credits twice.">
            <input name="reference" required maxLength={200} />
          </Field>
          <button type="submit" disabled={topUp.busy}>
            Top up
          </button>
        </form>
        <ErrorNote error={topUp.error} />
        {topUp.result ? (
          <p class="ok" role="status">
            {topUp.result.replayed ? 'Already credited under this reference: nothing changed.' : `Credited ${topUp.result.entry.amount}.`}
          </p>
        ) : null}
      </Section>
      <Keys customerId={id} />
      <CustomerPricing customerId={id} />
      <Journal customerId={id} refreshKey={credited} />
      <SpendReport customerId={id} />
      <AdminExport customerId={id} />
      <AlertsSection
        load={() => adminApi.get('/admin/v1/customers/{customer_id}/alerts', { path: { customer_id: id } })}
        update={(change) => adminApi.patch('/admin/v1/customers/{customer_id}/alerts', { path: { customer_id: id }, body: change })}
        currency={w?.currency}
      />
    </>
  );
}
