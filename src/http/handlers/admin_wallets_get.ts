import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { isLedgerError, LedgerError } from '../../ledger/errors.ts';
import { errorReply } from '../errors.ts';
import { walletToWire } from '../serialize/ledger.ts';

export async function admin_wallets_get(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_wallets_get'>> {
  const customerId = ctx.params.customer_id ?? '';
  const balance = await ctx.services.ledger.balance(customerId);
  if (isLedgerError(balance)) return errorReply(404, LedgerError.CustomerNotFound);
  return { status: 200, body: walletToWire(customerId, ctx.services.discovery.currency(), balance) };
}
