import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { isLedgerError, LedgerError } from '../../ledger/index.ts';
import { failureOf } from '../errors.ts';
import { entryToWire } from '../serialize/ledger.ts';

export async function admin_ledger_list(ctx: AdminContext<'admin_ledger_list'>): Promise<Ok<AdminOperations, 'admin_ledger_list'> | Failure> {
  const query = ctx.query;
  const page = await ctx.services.ledger.journal(ctx.params.customer_id, {
    limit: query.limit ?? 50,
    ...(query.before ? { before: BigInt(query.before) } : {}),
  });
  if (isLedgerError(page)) return failureOf(LedgerError.CustomerNotFound);
  const data = page.entries.map(entryToWire);
  return { status: 200, body: { object: 'list', data, has_more: page.hasMore, next_before: page.hasMore ? data.at(-1)!.id : null } };
}
