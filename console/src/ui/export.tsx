// The usage export (issue 28) as a download: the API streams CSV or NDJSON line by line with a
// totals line that equals the journal's debits; the console fetches it with the credential in a
// header (a link cannot carry one) and saves it under the name the API gives.
import { useState } from 'preact/hooks';
import { saveResponse } from './download.ts';
import { endSoFar, monthStartUtc, todayUtc } from './format.ts';
import { useAction } from './hooks.ts';
import { ErrorNote, Field, onSubmit, Section } from './parts.tsx';

export interface ExportRequest {
  /** Inclusive, `YYYY-MM-DD` (00:00 UTC). */
  from: string;
  /** Exclusive, `YYYY-MM-DD` (the day after the last one asked for); left out while it is still to come. */
  to?: string | undefined;
  format: 'csv' | 'ndjson';
}

/** The day after a `YYYY-MM-DD` day. */
export const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export function ExportForm({ title, download }: { title: string; download: (request: ExportRequest) => Promise<Response> }) {
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction(async (request: ExportRequest) => {
    const response = await download(request);
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `usage.${request.format}`;
    await saveResponse(response, name);
    setSaved(name);
    return name;
  });
  return (
    <Section title={title}>
      <p class="hint">
        One line per charge posted in the period (up to now while it lasts), then a totals line that equals the journal's debits to the micro-unit. Each line's
        id opens its receipt.
      </p>
      <form
        class="inline"
        aria-label={title}
        onSubmit={onSubmit(({ from, to, format }) => {
          setSaved(null);
          // A period that has not ended is exported up to the API's watermark: everything final so far.
          const end = nextDay(to || todayUtc());
          void save.run({ from: from || monthStartUtc(), to: endSoFar(`${end}T00:00:00Z`) && end, format: format === 'ndjson' ? 'ndjson' : 'csv' });
        })}
      >
        <Field label="Export from (UTC day)">
          <input name="from" type="date" defaultValue={monthStartUtc()} required />
        </Field>
        <Field label="Export to (UTC day, inclusive)">
          <input name="to" type="date" defaultValue={todayUtc()} required />
        </Field>
        <Field label="Format">
          <select name="format">
            <option value="csv">CSV</option>
            <option value="ndjson">NDJSON</option>
          </select>
        </Field>
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Exporting…' : 'Download export'}
        </button>
      </form>
      <ErrorNote error={save.error} />
      {saved ? (
        <p class="ok" role="status">
          Saved {saved}.
        </p>
      ) : null}
    </Section>
  );
}

/** The export's query string. */
export const exportQuery = (request: ExportRequest, extra: Record<string, string> = {}): string =>
  new URLSearchParams({ ...extra, from: request.from, ...(request.to ? { to: request.to } : {}), format: request.format }).toString();
