import { Failure } from '../../domain/failure.ts';
import { exportFormat } from '../export-format.ts';
import type { StreamedReply, AdminContext } from '../handler.ts';

/** One customer's export, or every customer's, through ctx.sink (failures before any byte). */
export async function admin_usage_export(ctx: AdminContext<'admin_usage_export'>): Promise<StreamedReply | Failure> {
  const q = ctx.query;
  const written = await ctx.services.billing.exportAny(
    q.customer_id,
    { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}), format: exportFormat(ctx.query, ctx.headers.accept) },
    ctx.sink,
  );
  if (written instanceof Failure) return written;
  return { streamed: true };
}
