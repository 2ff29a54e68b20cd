import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { parseMicros } from '../../catalogue/decimal.ts';
import { isLedgerError } from '../../ledger/errors.ts';
import { errorReply } from '../errors.ts';
import { entryToWire, walletToWire } from '../serialize/ledger.ts';

type Body = AdminOperations['admin_credits_create']['requestBody']['content']['application/json'];

export async function admin_credits_create(ctx: RequestContext<Body>): Promise<Reply<AdminOperations, 'admin_credits_create'>> {
  const customerId = ctx.params.customer_id ?? '';
  const { ledger, discovery } = ctx.services;
  const result = await ledger.topUp({
    ref: ctx.body.reference,
    customerId,
    amount: parseMicros(ctx.body.amount), // the spec's pattern admits only plain decimals
    purpose: { actor: 'admin', request_id: ctx.requestId },
  });
  if (isLedgerError(result)) {
    if (result === 'customer_not_found') return errorReply(404, result);
    if (result === 'reference_conflict') return errorReply(409, result, 'reference');
    return errorReply(400, result, 'amount');
  }
  const balance = await ledger.balance(customerId);
  if (isLedgerError(balance)) throw new Error(`wallet vanished after a top-up: ${balance}`);
  const body = { object: 'credit' as const, replayed: result.replayed, entry: entryToWire(result.entry), wallet: walletToWire(customerId, discovery.currency(), balance) };
  return result.replayed ? { status: 200, body } : { status: 201, body };
}
