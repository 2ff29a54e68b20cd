import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { mismatchToWire } from '../serialize/ledger.ts';

export async function admin_reconciliation_get(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_reconciliation_get'> | Failure> {
  const { ledger } = ctx.services;
  const [mismatches, wallets] = await Promise.all([ledger.reconcile(), ledger.walletCount()]);
  return { status: 200, body: { object: 'reconciliation', ok: mismatches.length === 0, wallets_checked: wallets, mismatches: mismatches.map(mismatchToWire) } };
}
