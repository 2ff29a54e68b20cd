// The usage export: one line per journal entry that charged a request or a video task in a period
// (a late true-up of a request is a line of its own, dated when it was posted), then a totals
// line, as CSV or NDJSON, written page by page to the sink: never the whole file in memory. Its
// `charged` total is the journal's debits for those entries, to the micro-unit. A request priced at
// a long-context tier names the tier's threshold (`tier_above_input_tokens`).
import type { Knex } from 'knex';
import { csvLine } from '../../shared/csv.ts';
import { formatMicros } from '../../shared/money.ts';
import { watermarkHeaders } from '../account/window.ts';
import type { Sink } from '../sink.ts';
import { exportPage, type ExportLine, type ExportRange } from './export-repo.ts';

export type ExportFormat = 'csv' | 'ndjson';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' };

const COLUMNS = [
  'posted_at',
  'customer_id',
  'key_id',
  'type',
  'id',
  'entry',
  'endpoint',
  'model',
  'price_version',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'tier_above_input_tokens',
  'video_seconds',
  'video_tier',
  'estimated',
  'free_units',
  'free_amount',
  'charged',
  'debt',
  'currency',
] as const;

type Record_ = Partial<Record<(typeof COLUMNS)[number], string | number | boolean | null>>;

const PAGE = 500;

interface Totals {
  lines: number;
  freeUnits: bigint;
  freeAmount: bigint;
  charged: bigint;
  debt: bigint;
}

const num = (value: bigint | number | null): number | null => (value === null ? null : Number(value));

function record(line: ExportLine, currency: string): Record_ {
  return {
    posted_at: line.posted_at,
    customer_id: line.customer_id,
    key_id: line.key_id,
    type: line.is_task ? 'video_task' : 'request',
    id: line.ref,
    entry: line.kind,
    endpoint: line.endpoint,
    model: line.model,
    price_version: line.price_version,
    input_tokens: num(line.input_tokens),
    output_tokens: num(line.output_tokens),
    cache_read_tokens: num(line.cache_read_tokens),
    cache_write_tokens: num(line.cache_write_tokens),
    tier_above_input_tokens: line.tier_above_input_tokens,
    video_seconds: line.video_seconds,
    video_tier: line.video_tier,
    estimated: line.estimated,
    free_units: Number(line.free_units),
    free_amount: formatMicros(BigInt(line.free_amount)),
    charged: formatMicros(BigInt(line.charged)),
    debt: formatMicros(BigInt(line.debt)),
    currency,
  };
}

const csvRow = (r: Record_): string => csvLine(COLUMNS.map((c) => r[c]));

export function exportFilename(range: ExportRange, format: ExportFormat): string {
  const day = (d: Date) => d.toISOString().slice(0, 19).replace(/:/g, '');
  return `usage-${range.customerId ?? 'all'}-${day(range.from)}-${day(range.to)}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

/**
 * Writes the export to the sink: status and headers first, then each page as it is read, then
 * the totals line. A database failure after the first byte cuts the response (sink.abort), so a
 * short file is never taken for a complete one: only a file ending in its totals line is whole.
 */
export async function streamExport(db: Knex, range: ExportRange, format: ExportFormat, currency: string, sink: Sink): Promise<Totals> {
  const totals: Totals = { lines: 0, freeUnits: 0n, freeAmount: 0n, charged: 0n, debt: 0n };
  // The first page before the first byte: a database that cannot answer is a clean 503.
  let page = await exportPage(db, range, undefined, PAGE);
  sink.start(200, {
    'content-type': EXPORT_CONTENT_TYPES[format],
    'content-disposition': `attachment; filename="${exportFilename(range, format)}"`,
    'cache-control': 'no-store',
    ...watermarkHeaders(range.watermark),
  });
  let chunk = format === 'csv' ? csvRow(Object.fromEntries(COLUMNS.map((c) => [c, c]))) : '';
  try {
    for (;;) {
      for (const line of page) {
        totals.lines++;
        totals.freeUnits += BigInt(line.free_units);
        totals.freeAmount += BigInt(line.free_amount);
        totals.charged += BigInt(line.charged);
        totals.debt += BigInt(line.debt);
        const r = record(line, currency);
        chunk += format === 'csv' ? csvRow(r) : `${JSON.stringify({ object: 'usage_export.line', ...r })}\n`;
      }
      if (chunk) await sink.write(chunk); // waits while the client is slower than the database
      chunk = '';
      if (page.length < PAGE || sink.closed) break;
      const last = page.at(-1)!;
      page = await exportPage(db, range, { at: last.cursor_at, id: BigInt(last.id) }, PAGE);
    }
  } catch (error) {
    sink.abort();
    throw error;
  }
  sink.end(format === 'csv' ? csvRow(totalsRecord(totals, currency)) : `${JSON.stringify(totalsObject(totals, range, currency))}\n`);
  return totals;
}

const totalsRecord = (t: Totals, currency: string): Record_ => ({
  type: 'total',
  id: `${t.lines} lines`,
  free_units: Number(t.freeUnits),
  free_amount: formatMicros(t.freeAmount),
  charged: formatMicros(t.charged),
  debt: formatMicros(t.debt),
  currency,
});

const totalsObject = (t: Totals, range: ExportRange, currency: string) => ({
  object: 'usage_export.totals',
  customer_id: range.customerId ?? null,
  from: range.from.toISOString(),
  to: range.to.toISOString(),
  watermark: range.watermark.toISOString(),
  lines: t.lines,
  free_units: Number(t.freeUnits),
  free_amount: formatMicros(t.freeAmount),
  charged: formatMicros(t.charged),
  debt: formatMicros(t.debt),
  currency,
});
