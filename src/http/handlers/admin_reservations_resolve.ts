import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { holdToWire } from '../serialize/ledger.ts';

export async function admin_reservations_resolve(
  ctx: AdminContext<'admin_reservations_resolve'>,
): Promise<Ok<AdminOperations, 'admin_reservations_resolve'> | Failure> {
  const hold = await ctx.services.holdsReview.resolve(ctx.params.ref, ctx.body);
  if (hold instanceof Failure) return hold;
  return { status: 200, body: holdToWire(hold) };
}
