import { formatMicros } from '../../shared/money.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { mismatchToWire, pricedDifferenceToWire } from '../serialize/ledger.ts';

type Query = NonNullable<AdminOperations['admin_reconciliation_get']['parameters']['query']>;

/** The window of charges checked against their priced usage when the caller names none. */
const DEFAULT_WINDOW_MS = 24 * 3_600_000;

/** Wallets against their journal, charges against their priced usage, and request holds that outlived their process. */
export async function admin_reconciliation_get(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_reconciliation_get'>> {
  const { ledger, holdsReview } = ctx.services;
  const q = (ctx.query ?? {}) as Query;
  // `since`/`until` are storable instants: the contract's date-time format (src/http/spec.ts) says so.
  const until = q.until ? new Date(q.until) : new Date();
  const since = q.since ? new Date(q.since) : new Date(until.getTime() - DEFAULT_WINDOW_MS);
  const [mismatches, keySpend, wallets, stale, debt, priced] = await Promise.all([
    ledger.reconcile(),
    ledger.reconcileKeySpend(),
    ledger.walletCount(),
    holdsReview.stale(),
    ledger.debtOutstanding(),
    ledger.reconcilePriced({ since, until }),
  ]);
  return {
    status: 200,
    body: {
      object: 'reconciliation',
      ok: mismatches.length === 0 && keySpend.length === 0 && stale.count === 0 && priced.differenceCount === 0,
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
      priced: {
        since: priced.since.toISOString(),
        until: priced.until.toISOString(),
        checked: priced.checked,
        difference_count: priced.differenceCount,
        legacy: priced.legacy,
        differences: priced.differences.map(pricedDifferenceToWire),
      },
    },
  };
}
