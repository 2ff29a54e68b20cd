// Spend over time per day and model: every customer's, or one customer's.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { ExportForm, exportQuery } from '../ui/export.tsx';
import { Field, onSubmit, Section } from '../ui/parts.tsx';
import { UsageView } from '../ui/usage.tsx';

const adminUsage = (customerId: string | undefined) => (start: string, end: string) =>
  adminApi.get('/admin/v1/usage', { query: { start_date: start, end_date: end, ...(customerId ? { customer_id: customerId } : {}) } });

export function Spend() {
  const [customerId, setCustomerId] = useState<string | undefined>(undefined);
  return (
    <>
      <h1>Spend</h1>
      <Section title="Whose spend">
        <form class="inline" aria-label="Whose spend" onSubmit={onSubmit(({ customer_id }) => setCustomerId(customer_id || undefined))}>
          <Field label="Customer id" hint="Empty: every customer.">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <button type="submit">Show</button>
        </form>
      </Section>
      <UsageView title={customerId ? `Spend of ${customerId}` : 'Spend of every customer'} load={adminUsage(customerId)} deps={[customerId]} />
      <AdminExport customerId={customerId} />
    </>
  );
}

/** One customer's spend, on its page. */
export function SpendReport({ customerId }: { customerId: string }) {
  return <UsageView title="Spend per day and model" load={adminUsage(customerId)} deps={[customerId]} />;
}

/** Charges line by line, of one customer or every customer. */
export function AdminExport({ customerId }: { customerId: string | undefined }) {
  return (
    <ExportForm
      title={customerId ? `Export charges of ${customerId}` : 'Export charges of every customer'}
      download={(request) => adminApi.fetch(`/admin/v1/usage/export?${exportQuery(request, customerId ? { customer_id: customerId } : {})}`)}
    />
  );
}
