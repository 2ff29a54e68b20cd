// Redeem codes: mint a batch (its codes shown once, here, with a CSV download), and for every
// batch what became of its codes (who redeemed each, when), voiding one code or the rest.
import { redeemCodesCsv } from '../../../src/shared/csv.ts';
import { adminApi, type AdminSchemas } from '../api/session.ts';
import { saveResponse } from '../ui/download.ts';
import { localInputToIso } from '../ui/format.ts';
import { useAction, useLoad, usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, Money, onSubmit, Pager, Section, Table, Time } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';

type Batch = AdminSchemas['RedeemBatch'];
type Minted = AdminSchemas['RedeemBatchCreated'];

export function RedeemCodes() {
  const batches = usePaged(async (after) => {
    const page = await adminApi.get('/admin/v1/redeem-batches', { query: { limit: 20, ...(after ? { after } : {}) } });
    return { items: page.data, next: page.next_after ?? undefined };
  }, []);
  const mint = useAction((fields: Record<string, string>) =>
    adminApi.post('/admin/v1/redeem-batches', {
      body: {
        amount: fields.amount ?? '',
        count: Number(fields.count),
        expires_at: localInputToIso(fields.expires_at ?? '') ?? '',
        ...(fields.note ? { note: fields.note } : {}),
      },
    }),
  );
  return (
    <>
      <h1>Redeem codes</h1>
      {mint.result ? <MintedCodes batch={mint.result} onStored={mint.reset} /> : null}
      <Section title="Mint a batch">
        <form
          aria-label="Mint a batch"
          onSubmit={onSubmit(async (fields, form) => {
            if (await mint.run(fields)) {
              form.reset();
              batches.reload();
            }
          })}
        >
          <Field label="Amount per code" hint="Up to 6 decimals, e.g. 5.00">
            <input name="amount" required inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,6})?" />
          </Field>
          <Field label="Number of codes" hint="1 to 1000">
            <input name="count" type="number" required min="1" max="1000" step="1" />
          </Field>
          <Field label="Redeemable until" hint="In your time zone.">
            <input name="expires_at" type="datetime-local" required />
          </Field>
          <Field label="Note" hint="Yours: a campaign, a reseller. Customers never see it.">
            <input name="note" maxLength={500} />
          </Field>
          <ErrorNote error={mint.error} />
          <button type="submit" disabled={mint.busy}>
            Mint codes
          </button>
        </form>
      </Section>
      <Section title="Batches">
        <ErrorNote error={batches.error} />
        {batches.loading && batches.items.length === 0 ? (
          <Loading what="batches" />
        ) : batches.items.length === 0 && !batches.error ? (
          <Empty>No codes minted yet.</Empty>
        ) : (
          <ul class="items">
            {batches.items.map((b) => (
              <BatchItem key={b.id} batch={b} onChanged={batches.reload} />
            ))}
          </ul>
        )}
        <Pager loading={batches.loading && batches.items.length > 0} hasMore={batches.hasMore} onMore={batches.loadMore} count={batches.items.length} />
      </Section>
    </>
  );
}

/** The clear codes of a batch just minted: shown this once, with their CSV. */
function MintedCodes({ batch, onStored }: { batch: Minted; onStored: () => void }) {
  const filename = `redeem-codes-${batch.id}.csv`;
  const download = useAction(async () => {
    await saveResponse(new Response(redeemCodesCsv(batch), { headers: { 'content-type': 'text/csv' } }), filename);
    return filename;
  });
  return (
    <div class="secret" role="status" aria-label="New codes">
      <p>
        <strong>
          {batch.count} codes of <Money amount={batch.amount} currency={batch.currency} />, shown only now:
        </strong>{' '}
        download or copy them before you leave this screen; they cannot be read again.
      </p>
      <button type="button" onClick={() => void download.run()}>
        Download CSV
      </button>{' '}
      <button type="button" class="link" onClick={onStored}>
        I have stored them
      </button>
      {download.result ? <p class="ok">Saved {download.result}.</p> : null}
      <Table
        caption={`Codes of ${batch.id}`}
        rows={batch.codes}
        rowKey={(c) => c.id}
        columns={[
          { label: 'Code', cell: (c) => <code class="mono">{c.code}</code> },
          { label: 'Id', cell: (c) => <code>{c.id}</code> },
        ]}
      />
    </div>
  );
}

function BatchItem({ batch: b, onChanged }: { batch: Batch; onChanged: () => void }) {
  const voidRest = useAction(() => adminApi.post('/admin/v1/redeem-batches/{batch_id}/void', { path: { batch_id: b.id }, body: { reason: null } }));
  return (
    <li class="item" aria-label={`Batch ${b.id}`}>
      <div>
        <strong>
          {b.count} × <Money amount={b.amount} currency={b.currency} />
        </strong>{' '}
        {b.note ? <span>{b.note}</span> : null}
      </div>
      <p class="meta">
        <code>{b.id}</code> · minted <Time at={b.created_at} /> · redeemable until <Time at={b.expires_at} />
      </p>
      <p class="meta">
        {b.active} active · {b.redeemed} redeemed · {b.voided} voided · {b.expired} expired
      </p>
      {b.active > 0 ? (
        <button
          type="button"
          class="danger"
          disabled={voidRest.busy}
          onClick={async () => {
            if (confirm(`Void the ${b.active} codes of ${b.id} that were not redeemed? They stop working at once.`) && (await voidRest.run())) onChanged();
          }}
        >
          Void the unredeemed codes
        </button>
      ) : null}
      <ErrorNote error={voidRest.error} />
      <details>
        <summary>Codes</summary>
        <BatchCodes batchId={b.id} onChanged={onChanged} />
      </details>
    </li>
  );
}

function BatchCodes({ batchId, onChanged }: { batchId: string; onChanged: () => void }) {
  const codes = useLoad(() => adminApi.get('/admin/v1/redeem-codes', { query: { batch_id: batchId, limit: 500 } }), [batchId]);
  const voidOne = useAction((codeId: string) => adminApi.post('/admin/v1/redeem-codes/{code_id}/void', { path: { code_id: codeId }, body: { reason: null } }));
  if (!codes.data) return codes.loading ? <Loading what="codes" /> : <ErrorNote error={codes.error} />;
  return (
    <>
      <ErrorNote error={voidOne.error} />
      <Table
        caption={`Codes of ${batchId}`}
        rows={codes.data.data}
        rowKey={(c) => c.id}
        columns={[
          { label: 'Id', cell: (c) => <code>{c.id}</code> },
          { label: 'Status', cell: (c) => <Badge value={c.status} /> },
          {
            label: 'Redeemed by',
            cell: (c) => (c.redeemed_by ? <a href={href('operator', 'customers', c.redeemed_by)}>{c.redeemed_by}</a> : <span class="muted">—</span>),
          },
          { label: 'Key', cell: (c) => (c.redeemed_key_id ? <code>{c.redeemed_key_id}</code> : <span class="muted">—</span>) },
          { label: 'When', cell: (c) => <Time at={c.redeemed_at ?? c.voided_at} /> },
          {
            label: 'Action',
            cell: (c) =>
              c.status === 'active' ? (
                <button
                  type="button"
                  class="secondary"
                  disabled={voidOne.busy}
                  onClick={async () => {
                    if (await voidOne.run(c.id)) {
                      codes.reload();
                      onChanged();
                    }
                  }}
                >
                  Void {c.id}
                </button>
              ) : null,
          },
        ]}
      />
      {codes.data.has_more ? <p class="muted small">The first 500 codes; `npm run admin -- redeem codes --batch {batchId}` pages the rest.</p> : null}
    </>
  );
}
