import { formatMicros } from '../../shared/money.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { mismatchToWire } from '../serialize/ledger.ts';

/** Wallets against their journal, and request holds that outlived their process. */
export async function admin_reconciliation_get(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_reconciliation_get'>> {
  const { ledger, holdsReview } = ctx.services;
  const [mismatches, keySpend, wallets, stale, debt] = await Promise.all([
    ledger.reconcile(),
    ledger.reconcileKeySpend(),
    ledger.walletCount(),
    holdsReview.stale(),
    ledger.debtOutstanding(),
  ]);
  return {
    status: 200,
    body: {
      object: 'reconciliation',
      ok: mismatches.length === 0 && keySpend.length === 0 && stale.count === 0,
      wallets_checked: wallets,
      mismatches: mismatches.map(mismatchToWire),
      key_spend_mismatches: keySpend.map((m) => ({
        customer_id: m.customer_id,
        key_id: m.key_id,
        day: m.day,
        rollup: formatMicros(m.rollup),
        expected: formatMicros(m.expected),
      })),
      stale_holds: { count: stale.count, amount: formatMicros(stale.amount), refs: stale.refs },
      debt: { customers: debt.customers, amount: formatMicros(debt.amount) },
    },
  };
}
