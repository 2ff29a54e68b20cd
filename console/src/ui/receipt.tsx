// A receipt (issue 28): how one request or video task was charged, to the micro-unit. The same
// view for a customer (`GET /v1/requests/{id}`) and an operator (`GET /admin/v1/receipts/{id}`);
// amounts are the API's decimal strings as they come, the provider's usage as it reported it.
import { Fragment, type ComponentChildren } from 'preact';
import type { PublicSchemas } from '../api/session.ts';
import { useLoad } from './hooks.ts';
import { Badge, ErrorNote, Loading, Money, Section, Table, Time } from './parts.tsx';

export type Receipt = PublicSchemas['Receipt'];

/** Loads a receipt and shows it; the API's refusal (404 for an id that is not the caller's) as its words. */
export function ReceiptScreen({ id, load, crumbs }: { id: string; load: (id: string) => Promise<Receipt>; crumbs: ComponentChildren }) {
  const receipt = useLoad(() => load(id), [id]);
  return (
    <>
      <p class="crumbs">{crumbs} /</p>
      <h1>
        Receipt <code>{id}</code>
      </h1>
      <ErrorNote error={receipt.error} />
      {receipt.data ? <ReceiptView receipt={receipt.data} /> : receipt.loading ? <Loading what="the receipt" /> : null}
    </>
  );
}

export function ReceiptView({ receipt: r }: { receipt: Receipt }) {
  const c = r.charge;
  return (
    <>
      <Section title="Charge">
        {r.billable ? null : (
          <p class="ok" role="note">
            Free: this request cannot be charged, so nothing was held or charged and there is nothing to settle.
          </p>
        )}
        <dl class="figures">
          <dt>Charged</dt>
          <dd>
            <Money amount={c.total} currency={r.currency} />
          </dd>
          <dt>From the hold</dt>
          <dd>
            <Money amount={c.from_hold} currency={r.currency} />
          </dd>
          <dt>From the balance, beyond the hold</dt>
          <dd>
            <Money amount={c.from_balance} currency={r.currency} />
          </dd>
          <dt>Recorded as debt</dt>
          <dd>
            <Money amount={c.debt} currency={r.currency} />
          </dd>
          {c.waived !== '0.000000' ? (
            <>
              <dt>Waived by an operator</dt>
              <dd>
                <Money amount={c.waived} currency={r.currency} />
              </dd>
            </>
          ) : null}
          <dt>Posted after the hold ended</dt>
          <dd>
            <Money amount={c.true_up} currency={r.currency} />
          </dd>
          <dt>Free units spent</dt>
          <dd>
            {c.free_units} (worth <Money amount={c.free_amount} currency={r.currency} />)
          </dd>
          <dt>Usage</dt>
          <dd>
            {r.measurement.estimated ? <Badge value="estimated" /> : <Badge value="measured" />} {r.measurement.explanation}
          </dd>
        </dl>
      </Section>
      <Section title="What it was">
        <dl class="figures">
          <dt>Kind</dt>
          <dd>{r.type === 'video_task' ? 'Video task' : 'Request'}</dd>
          <dt>Endpoint</dt>
          <dd>{r.endpoint ? <code>{r.endpoint}</code> : '—'}</dd>
          <dt>Model</dt>
          <dd>
            {r.model ? <code>{r.model}</code> : '—'}
            {r.requested_model && r.requested_model !== r.model ? (
              <span class="small">
                {' '}
                asked as <code>{r.requested_model}</code>
              </span>
            ) : null}
            {r.max_tokens_capped ? (
              <span class="small">
                {' '}
                (max_tokens {r.max_tokens_capped.requested} sent as {r.max_tokens_capped.sent}, the model&apos;s cap)
              </span>
            ) : null}
          </dd>
          <dt>Status</dt>
          <dd>
            {r.http_status !== null ? <Badge value={r.http_status} /> : null}
            {r.task_status !== null ? <Badge value={r.task_status} /> : null}
          </dd>
          <dt>Key</dt>
          <dd>{r.key_id ? <code>{r.key_id}</code> : '—'}</dd>
          <dt>Created</dt>
          <dd>
            <Time at={r.created_at} />
          </dd>
          <dt>Settled</dt>
          <dd>
            <SettledText receipt={r} />
          </dd>
        </dl>
      </Section>
      <Section title="Price">
        {r.price ? (
          <>
            <p class="meta">
              Price version <strong>{r.price.version}</strong> of <code>{r.price.model}</code>, as the catalogue set it:
            </p>
            <Pairs caption="Unit prices" value={r.price.unit_prices} />
          </>
        ) : (
          <p class="muted">Not priced: nothing was held or charged.</p>
        )}
      </Section>
      <Section title="Usage">
        <h3>Units priced</h3>
        <Pairs caption="Units priced" value={r.usage.billed} />
        {r.usage.price_tier ? (
          <p class="meta">
            Long-context prices: the input ({r.usage.price_tier.input_tokens} tokens, cache included) is above {r.usage.price_tier.above_input_tokens}, so every
            line was priced at tier {r.usage.price_tier.index + 1} of the version.
          </p>
        ) : null}
        <h3>As the provider reported it</h3>
        {r.usage.reported ? <Pairs caption="Usage as reported" value={r.usage.reported} /> : <p class="muted">The provider reported none.</p>}
      </Section>
      <Section title="Hold">
        <dl class="figures">
          <dt>Held from</dt>
          <dd>{r.hold.source ?? 'nothing was held'}</dd>
          <dt>Held</dt>
          <dd>
            <Money amount={r.hold.amount} currency={r.currency} />
            {r.hold.free_units_held ? ` and ${r.hold.free_units_held} free units` : null}
          </dd>
          <dt>Outcome</dt>
          <dd>
            <Badge value={r.hold.outcome} />
          </dd>
          <dt>Given back</dt>
          <dd>
            <Money amount={r.hold.released} currency={r.currency} />
          </dd>
        </dl>
      </Section>
      <Section title="Journal entries">
        {r.journal.length === 0 ? (
          <p class="muted">No journal entry of its own (a grant's charge is posted when the process reports it).</p>
        ) : (
          <Table
            caption="Journal entries of this receipt"
            rows={r.journal}
            rowKey={(e) => `${e.kind}:${e.reference}`}
            columns={[
              { label: 'When', cell: (e) => <Time at={e.created_at} /> },
              { label: 'Kind', cell: (e) => <Badge value={e.kind} /> },
              { label: 'Amount', class: 'num', cell: (e) => <Money amount={e.amount} /> },
              { label: 'Free units', class: 'num', cell: (e) => String(e.free_units) },
              { label: 'Debt', class: 'num', cell: (e) => <Money amount={e.debt} /> },
              { label: 'Reference', cell: (e) => <code>{e.reference}</code> },
            ]}
          />
        )}
      </Section>
    </>
  );
}

/** When the hold ended, or why there is none to end: "not yet" only while one is open. */
function SettledText({ receipt: r }: { receipt: Receipt }) {
  if (r.settled_at) return <Time at={r.settled_at} />;
  if (r.hold.outcome === 'pending') return <>not yet</>;
  if (!r.billable) return <>never: the request was free</>;
  if (r.hold.outcome === 'none') return <>never: nothing was held or charged</>;
  return <>at once: nothing was charged</>; // a grant's draw given back in memory
}

/** An object the API passes on as it is (unit prices, usage): its leaves by dotted name, as text. */
function Pairs({ caption, value }: { caption: string; value: Record<string, unknown> }) {
  const rows = leaves(value);
  if (rows.length === 0) return <p class="muted">None.</p>;
  return (
    <dl class="figures pairs" aria-label={caption}>
      {rows.map(([name, text]) => (
        <Fragment key={name}>
          <dt class="mono">{name}</dt>
          <dd class="num">{text}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function leaves(value: unknown, prefix = ''): Array<[string, string]> {
  // A list of objects (a price's long-context tiers) by position: tiers.0.input_per_mtok.
  const objects = Array.isArray(value) && value.length > 0 && value.every((item) => item !== null && typeof item === 'object');
  if (value === null || typeof value !== 'object' || (Array.isArray(value) && !objects))
    return [[prefix || 'value', value === null ? 'null' : typeof value === 'string' ? value : JSON.stringify(value)]];
  const out: Array<[string, string]> = [];
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) out.push(...leaves(inner, prefix ? `${prefix}.${name}` : name));
  return out;
}
