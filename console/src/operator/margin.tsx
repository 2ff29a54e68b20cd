// The margin report: revenue, upstream cost and margin by customer and model over a period, from
// the journal (GET /admin/v1/usage/margin). Revenue charged through routes without a cost is shown
// apart: it has no margin to tell, and is never costed at zero.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { nextDay } from '../ui/export.tsx';
import { endSoFar, monthStartUtc, todayUtc } from '../ui/format.ts';
import { useLoad } from '../ui/hooks.ts';
import { Empty, ErrorNote, Field, Loading, Money, onSubmit, Section, Table } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';

interface Period {
  from: string;
  to: string;
  customerId: string;
}

export function Margin() {
  const [period, setPeriod] = useState<Period>({ from: monthStartUtc(), to: todayUtc(), customerId: '' });
  const report = useLoad(() => {
    // A period that has not ended is reported up to the API's watermark (everything final so far), as exports are.
    const end = nextDay(period.to);
    const to = endSoFar(`${end}T00:00:00Z`) ? { to: end } : {};
    return adminApi.get('/admin/v1/usage/margin', { query: { from: period.from, ...to, ...(period.customerId ? { customer_id: period.customerId } : {}) } });
  }, [period.from, period.to, period.customerId]);
  const r = report.data;
  return (
    <>
      <h1>Margin</h1>
      <Section title="Period">
        <form
          class="inline"
          aria-label="Margin period"
          onSubmit={onSubmit(({ from, to, customer_id }) => setPeriod({ from: from || monthStartUtc(), to: to || todayUtc(), customerId: customer_id ?? '' }))}
        >
          <Field label="From (UTC day)">
            <input name="from" type="date" defaultValue={period.from} required />
          </Field>
          <Field label="To (UTC day, inclusive)">
            <input name="to" type="date" defaultValue={period.to} required />
          </Field>
          <Field label="Customer id" hint="Empty: every customer.">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <button type="submit">Show</button>
        </form>
      </Section>
      <ErrorNote error={report.error} />
      {!r ? (
        report.loading ? (
          <Loading what="the report" />
        ) : null
      ) : (
        <>
          <Section title="Totals">
            <dl class="figures">
              <dt>Revenue</dt>
              <dd>
                <Money amount={r.totals.revenue} currency={r.currency} />
              </dd>
              <dt>Upstream cost</dt>
              <dd>
                <Money amount={r.totals.upstream_cost} currency={r.currency} />
              </dd>
              <dt>Margin</dt>
              <dd>
                <Money amount={r.totals.margin} currency={r.currency} />
              </dd>
              <dt>Revenue without a cost</dt>
              <dd>
                <Money amount={r.totals.revenue_without_cost} currency={r.currency} />
              </dd>
              <dt>Requests and tasks</dt>
              <dd>{r.totals.requests}</dd>
            </dl>
          </Section>
          <Section title="By customer and model">
            {r.data.length === 0 ? (
              <Empty>Nothing was charged in the period.</Empty>
            ) : (
              <Table
                caption="Margin by customer and model"
                rows={r.data}
                rowKey={(row) => `${row.customer_id} ${row.model}`}
                columns={[
                  { label: 'Customer', cell: (row) => <a href={href('operator', 'customers', row.customer_id)}>{row.customer_id}</a> },
                  { label: 'Model', cell: (row) => <code>{row.model}</code> },
                  { label: 'Requests', class: 'num', cell: (row) => String(row.requests) },
                  { label: 'Revenue', class: 'num', cell: (row) => <Money amount={row.revenue} /> },
                  { label: 'Upstream cost', class: 'num', cell: (row) => <Money amount={row.upstream_cost} /> },
                  { label: 'Margin', class: 'num', cell: (row) => <Money amount={row.margin} /> },
                  { label: 'Without a cost', class: 'num', cell: (row) => <Money amount={row.revenue_without_cost} /> },
                ]}
              />
            )}
          </Section>
        </>
      )}
    </>
  );
}
