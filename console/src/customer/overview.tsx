// The customer's wallet and free allowances, a redeem code's credit, and the key it signed in
// with: limits and spend.
import { useState } from 'preact/hooks';
import { publicApi } from '../api/session.ts';
import { limitsText } from '../operator/key-actions.tsx';
import { useAction, useLoad } from '../ui/hooks.ts';
import { Empty, ErrorNote, Field, Loading, Money, onSubmit, Section, Table, Time } from '../ui/parts.tsx';

export function Overview() {
  const [credited, setCredited] = useState(0); // a redeemed code reloads the wallet
  const wallet = useLoad(() => publicApi.get('/v1/wallet', {}), [credited]);
  const key = useLoad(() => publicApi.get('/v1/key', {}), []);
  const w = wallet.data;
  const k = key.data;
  return (
    <>
      <h1>Wallet and key</h1>
      <Section title="Wallet">
        <ErrorNote error={wallet.error} />
        {!w ? (
          wallet.loading ? (
            <Loading what="the wallet" />
          ) : null
        ) : (
          <>
            <dl class="figures">
              <dt>Available</dt>
              <dd>
                <Money amount={w.available} currency={w.currency} />
              </dd>
              <dt>Reserved by work in flight</dt>
              <dd>
                <Money amount={w.reserved} currency={w.currency} />
              </dd>
            </dl>
            <h3>Free allowances</h3>
            {w.free_quota.length === 0 ? (
              <Empty>None of your models has a free allowance.</Empty>
            ) : (
              <Table
                caption="Free allowances"
                rows={w.free_quota}
                rowKey={(q) => q.model}
                columns={[
                  { label: 'Model', cell: (q) => <code>{q.model}</code> },
                  { label: 'Left', class: 'num', cell: (q) => `${q.left} of ${q.amount} ${q.unit}` },
                  { label: 'Period', cell: (q) => `per UTC ${q.period}` },
                  { label: 'Renews', cell: (q) => <Time at={q.period_end} /> },
                ]}
              />
            )}
          </>
        )}
      </Section>
      <RedeemSection onCredited={() => setCredited((n) => n + 1)} />
      <Section title="This key">
        <ErrorNote error={key.error} />
        {!k ? (
          key.loading ? (
            <Loading what="the key" />
          ) : null
        ) : (
          <dl class="figures">
            <dt>Name</dt>
            <dd>
              {k.name} <code>{k.redacted_key}</code>
            </dd>
            <dt>Limits</dt>
            <dd>{limitsText(k.limits)}</dd>
            <dt>Expires</dt>
            <dd>{k.expires_at ? <Time at={k.expires_at} /> : 'never'}</dd>
            <dt>Models</dt>
            <dd>{k.allowed_models ? k.allowed_models.join(', ') : 'every model'}</dd>
            <dt>Spent today (UTC)</dt>
            <dd>
              <Money amount={k.spend.day} currency={k.currency} />
            </dd>
            <dt>Spent this month</dt>
            <dd>
              <Money amount={k.spend.month} currency={k.currency} />
            </dd>
            <dt>Spent in total</dt>
            <dd>
              <Money amount={k.spend.total} currency={k.currency} />
            </dd>
          </dl>
        )}
      </Section>
    </>
  );
}

/** A redeem code an operator gave: its credit lands on the wallet (once, however often it is sent). */
function RedeemSection({ onCredited }: { onCredited: () => void }) {
  const redeem = useAction((code: string) => publicApi.post('/v1/credits/redeem', { body: { code } }));
  return (
    <Section title="Redeem a code">
      <form
        class="inline"
        aria-label="Redeem a code"
        onSubmit={onSubmit(async ({ code }, form) => {
          if (await redeem.run(code ?? '')) {
            form.reset();
            onCredited();
          }
        })}
      >
        <Field label="Code" hint="As given; case, spaces and hyphens do not matter.">
          <input name="code" required maxLength={200} autoComplete="off" spellcheck={false} class="mono" />
        </Field>
        <button type="submit" disabled={redeem.busy}>
          Redeem
        </button>
      </form>
      <ErrorNote error={redeem.error} />
      {redeem.result ? (
        <p class="ok" role="status">
          Credited <Money amount={redeem.result.amount} currency={redeem.result.currency} /> (code <code>{redeem.result.code_id}</code>).
        </p>
      ) : null}
    </Section>
  );
}
