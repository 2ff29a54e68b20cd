// Request-log rows, for operators (with the provider) and for customers (without it); each
// request id opens its receipt.
import { Badge, Field, Money, Table, Time } from './parts.tsx';
import { href } from './router.ts';

export interface LogRow {
  id: string;
  request_id: string;
  customer_id: string | null;
  key_id: string | null;
  endpoint: string;
  model: string | null;
  /** The name the client sent (an alias or a name a pattern matched differs from `model`). */
  requested_model?: string | null;
  provider?: string | null;
  status: number;
  error_type: string | null;
  latency_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost: string | null;
  usage_estimated: boolean;
  interrupted: boolean;
  stream: boolean;
  created_at: string;
}

export function LogTable({ rows, operator }: { rows: LogRow[]; operator: boolean }) {
  return (
    <Table
      caption="Requests"
      rows={rows}
      rowKey={(r) => r.id}
      columns={[
        { label: 'When', cell: (r) => <Time at={r.created_at} /> },
        { label: 'Endpoint', cell: (r) => <code>{r.endpoint}</code> },
        {
          label: 'Model',
          cell: (r) =>
            r.model === null ? (
              <span class="muted">—</span>
            ) : (
              <>
                {r.model}
                {r.requested_model && r.requested_model !== r.model ? <span class="small"> as {r.requested_model}</span> : null}
              </>
            ),
        },
        ...(operator
          ? [
              { label: 'Customer', cell: (r: LogRow) => (r.customer_id ? <code>{r.customer_id}</code> : <span class="muted">—</span>) },
              { label: 'Provider', cell: (r: LogRow) => r.provider ?? <span class="muted">—</span> },
            ]
          : []),
        { label: 'Key', cell: (r) => (r.key_id ? <code>{r.key_id}</code> : <span class="muted">—</span>) },
        {
          label: 'Status',
          cell: (r) => (
            <>
              <Badge value={r.status} />
              {r.error_type ? <span class="small"> {r.error_type}</span> : null}
              {r.interrupted ? <span class="small"> interrupted</span> : null}
            </>
          ),
        },
        {
          label: 'Tokens in / out',
          class: 'num',
          cell: (r) => `${r.input_tokens ?? '—'} / ${r.output_tokens ?? '—'}${r.usage_estimated ? ' (estimated)' : ''}`,
        },
        { label: 'Cost', class: 'num', cell: (r) => <Money amount={r.cost} /> },
        { label: 'Latency', class: 'num', cell: (r) => `${r.latency_ms} ms${r.stream ? ', stream' : ''}` },
        {
          label: 'Request id',
          cell: (r) => (
            <a href={href(operator ? 'operator' : 'customer', 'requests', r.request_id)} aria-label={`Receipt of ${r.request_id}`}>
              <code>{r.request_id}</code>
            </a>
          ),
        },
      ]}
    />
  );
}

/** Which requests a log screen lists: billable ones (the default), every one, or only the free reads. */
export function ShowField() {
  return (
    <Field label="Show">
      <select name="show" defaultValue="billable">
        <option value="billable">billable requests</option>
        <option value="all">every request</option>
        <option value="free">free requests only</option>
      </select>
    </Field>
  );
}

/** The API's `billable` filter for a choice of ShowField. */
export const billableOf = (show: string | undefined): boolean | undefined => (show === 'all' ? undefined : show !== 'free');
