// The ledger's self-check: every wallet equals its journal, every charge of the last 24 hours its
// priced usage, no hold outlived its process.
import { adminApi } from '../api/session.ts';
import { useLoad } from '../ui/hooks.ts';
import { ErrorNote, Loading, Money, Section, Table, Time } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';

export function Reconciliation() {
  const check = useLoad(() => adminApi.get('/admin/v1/ledger/reconciliation', {}), []);
  const r = check.data;
  return (
    <>
      <h1>Reconciliation</h1>
      <button type="button" class="secondary" onClick={check.reload} disabled={check.loading}>
        Check again
      </button>
      <ErrorNote error={check.error} />
      {!r ? (
        check.loading ? (
          <Loading what="the check" />
        ) : null
      ) : (
        <>
          <Section title="Result">
            <p class={r.ok ? 'ok' : 'error'} role="status">
              {r.ok ? 'OK: every wallet equals its journal, every charge its priced usage, and no hold outlived its process.' : 'NOT OK: see below.'}{' '}
              {r.wallets_checked} wallets checked; {r.priced.checked} requests and tasks charged from <Time at={r.priced.since} /> to{' '}
              <Time at={r.priced.until} /> priced again
              {r.priced.legacy ? `; ${r.priced.legacy} charged before the journal recorded their pricing, not checked` : ''}.
            </p>
            <dl class="figures">
              <dt>Stale holds</dt>
              <dd>
                {r.stale_holds.count} (<Money amount={r.stale_holds.amount} />)
              </dd>
              <dt>Customers in debt</dt>
              <dd>
                {r.debt.customers} (<Money amount={r.debt.amount} />)
              </dd>
            </dl>
            {r.stale_holds.refs.length ? <p class="meta">Stale: {r.stale_holds.refs.join(', ')} (resolve them under Holds)</p> : null}
          </Section>
          {r.mismatches.length ? (
            <Section title="Wallet mismatches">
              <Table
                caption="Wallet mismatches"
                rows={r.mismatches}
                rowKey={(m) => `${m.customer_id}:${m.column}`}
                columns={[
                  { label: 'Customer', cell: (m) => <code>{m.customer_id}</code> },
                  { label: 'Column', cell: (m) => m.column },
                  { label: 'Wallet', class: 'num', cell: (m) => <Money amount={m.wallet} /> },
                  { label: 'Journal says', class: 'num', cell: (m) => <Money amount={m.expected} /> },
                ]}
              />
            </Section>
          ) : null}
          {r.priced.differences.length ? (
            <Section title={`Charges that differ from their priced usage (${r.priced.difference_count})`}>
              <Table
                caption="Charges that differ from their priced usage"
                rows={r.priced.differences}
                rowKey={(d) => d.id}
                columns={[
                  { label: 'Request or task', cell: (d) => <a href={href('operator', 'requests', d.id)}>{d.id}</a> },
                  { label: 'Customer', cell: (d) => <code>{d.customer_id}</code> },
                  { label: 'Why', cell: (d) => d.reason.replace('_', ' ') },
                  { label: 'Priced', class: 'num', cell: (d) => <Money amount={d.priced} /> },
                  { label: 'Charged', class: 'num', cell: (d) => <Money amount={d.charged} /> },
                  { label: 'Debt', class: 'num', cell: (d) => <Money amount={d.debt} /> },
                  { label: 'Free', class: 'num', cell: (d) => <Money amount={d.free_amount} /> },
                  { label: 'Waived', class: 'num', cell: (d) => <Money amount={d.waived} /> },
                  { label: 'Short by', class: 'num', cell: (d) => <Money amount={d.difference} /> },
                ]}
              />
            </Section>
          ) : null}
          {r.key_spend_mismatches.length ? (
            <Section title="Key spend mismatches">
              <Table
                caption="Key spend mismatches"
                rows={r.key_spend_mismatches}
                rowKey={(m) => `${m.key_id}:${m.day}`}
                columns={[
                  { label: 'Key', cell: (m) => <code>{m.key_id}</code> },
                  { label: 'Day (UTC)', cell: (m) => m.day },
                  { label: 'Rollup', class: 'num', cell: (m) => <Money amount={m.rollup} /> },
                  { label: 'Journal says', class: 'num', cell: (m) => <Money amount={m.expected} /> },
                ]}
              />
            </Section>
          ) : null}
        </>
      )}
    </>
  );
}
