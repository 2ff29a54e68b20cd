// Small pieces every screen uses. Every string from the API or a user is rendered as text (JSX
// children and attributes), never as HTML: nothing here or anywhere in the console writes HTML.
import type { ComponentChildren, TargetedSubmitEvent } from 'preact';
import { ApiError } from '../api/client.ts';
import { localText, utcText } from './format.ts';

/** An instant in the reader's time zone; the UTC instant on hover and for screen readers' `datetime`. */
export function Time({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined) return <span class="muted">—</span>;
  const date = typeof at === 'number' ? new Date(at * 1000) : new Date(at);
  if (Number.isNaN(date.getTime())) return <span>{String(at)}</span>;
  return (
    <time dateTime={date.toISOString()} title={utcText(date)}>
      {localText(date)}
    </time>
  );
}

/** An amount exactly as the API gave it (a six-decimal string), with the currency when known. */
export function Money({ amount, currency }: { amount: string | null | undefined; currency?: string | undefined }) {
  if (amount === null || amount === undefined) return <span class="muted">—</span>;
  return (
    <span class="amount">
      {amount}
      {currency ? <span class="currency"> {currency}</span> : null}
    </span>
  );
}

/** An error in the API's words, with its request id for a support ticket. */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <p class="error" role="alert">
      {error.message}
      {api?.param ? <span class="detail"> (field: {api.param})</span> : null}
      {api?.requestId ? <span class="detail"> Request id: {api.requestId}</span> : null}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A labelled form control; the label is the control's accessible name. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      {children}
      {hint ? <span class="hint">{hint}</span> : null}
    </label>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Badge({ value }: { value: string | number }) {
  return <span class={`badge badge-${String(value).replace(/[^a-z0-9_-]/gi, '')}`}>{String(value)}</span>;
}

/** The list's state under a table: loading, the next page, or its end. */
export function Pager({ loading, hasMore, onMore, count }: { loading: boolean; hasMore: boolean; onMore: () => void; count: number }) {
  if (loading) return <Loading what="more" />;
  if (hasMore)
    return (
      <button type="button" class="secondary" onClick={onMore}>
        Load more
      </button>
    );
  return count > 0 ? <p class="muted small">End of the list ({count}).</p> : null;
}

/** A table that becomes labelled cards on a narrow screen (style.css reads each cell's data-label). */
export function Table<T>({
  caption,
  rows,
  columns,
  rowKey,
}: {
  caption: string;
  rows: T[];
  rowKey: (row: T) => string;
  columns: Array<{ label: string; cell: (row: T) => ComponentChildren; class?: string }>;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label} class={c.class}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label} data-label={c.label} class={c.class}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Calls `submit` with the form's fields by name, and keeps the page where it is. */
export function onSubmit(submit: (fields: Record<string, string>, form: HTMLFormElement) => void) {
  return (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields: Record<string, string> = {};
    for (const [name, value] of new FormData(form)) if (typeof value === 'string') fields[name] = value.trim();
    submit(fields, form);
  };
}
