import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { isLedgerError, LedgerError } from '../../ledger/index.ts';
import { failureOf } from '../errors.ts';
import { walletToWire } from '../serialize/ledger.ts';

export async function admin_wallets_get(ctx: AdminContext<'admin_wallets_get'>): Promise<Ok<AdminOperations, 'admin_wallets_get'> | Failure> {
  const customerId = ctx.params.customer_id;
  const balance = await ctx.services.ledger.balance(customerId);
  if (isLedgerError(balance)) return failureOf(LedgerError.CustomerNotFound);
  return { status: 200, body: walletToWire(customerId, ctx.services.discovery.currency(), balance) };
}
