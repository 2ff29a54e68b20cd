// Spend and units per UTC day and model, as a chart and a table, over a chosen range of days.
import { useState } from 'preact/hooks';
import type { PublicSchemas } from '../api/session.ts';
import { SpendChart } from './chart.tsx';
import { monthStartUtc, todayUtc } from './format.ts';
import { useLoad } from './hooks.ts';
import { Empty, ErrorNote, Field, Loading, Money, onSubmit, Section, Table } from './parts.tsx';

type Report = PublicSchemas['UsageReport'];

export function UsageView({ title, load, deps = [] }: { title: string; load: (start: string, end: string) => Promise<Report>; deps?: unknown[] }) {
  const [range, setRange] = useState({ start: monthStartUtc(), end: todayUtc() });
  const report = useLoad(() => load(range.start, range.end), [range.start, range.end, ...deps]);
  const r = report.data;
  return (
    <Section title={title}>
      <form
        class="inline"
        aria-label={`${title}: days`}
        onSubmit={onSubmit(({ start, end }) => setRange({ start: start || range.start, end: end || range.end }))}
      >
        <Field label="From (UTC day)">
          <input name="start" type="date" defaultValue={range.start} required />
        </Field>
        <Field label="To (UTC day, inclusive)">
          <input name="end" type="date" defaultValue={range.end} required />
        </Field>
        <button type="submit">Show</button>
      </form>
      <ErrorNote error={report.error} />
      {!r ? (
        report.loading ? (
          <Loading what="usage" />
        ) : null
      ) : (
        <>
          <p class="total">
            Total spend {r.start_date} to {r.end_date}: <Money amount={r.total_spend} currency={r.currency} />
          </p>
          {r.data.length === 0 ? (
            <Empty>No usage in these days.</Empty>
          ) : (
            <>
              <SpendChart rows={r.data} start={r.start_date} end={r.end_date} currency={r.currency} />
              <Table
                caption={`${title} per day and model`}
                rows={r.data}
                rowKey={(row) => `${row.date}:${row.model}`}
                columns={[
                  { label: 'Day (UTC)', cell: (row) => row.date },
                  { label: 'Model', cell: (row) => <code>{row.model}</code> },
                  { label: 'Requests', class: 'num', cell: (row) => String(row.requests) },
                  { label: 'Tokens in / out', class: 'num', cell: (row) => `${row.input_tokens} / ${row.output_tokens}` },
                  { label: 'Video seconds', class: 'num', cell: (row) => String(row.video_seconds) },
                  { label: 'Spend', class: 'num', cell: (row) => <Money amount={row.spend} /> },
                ]}
              />
            </>
          )}
        </>
      )}
    </Section>
  );
}
