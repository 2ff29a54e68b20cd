import { Failure } from '../../domain/failure.ts';
import { exportFormat } from '../export-format.ts';
import type { StreamedReply, PublicContext } from '../handler.ts';

/** The export goes out through ctx.sink page by page; failures (JSON errors) come before any byte. */
export async function usage_export(ctx: PublicContext<'usage_export'>): Promise<StreamedReply | Failure> {
  const q = ctx.query;
  const written = await ctx.services.billing.exportOwn(
    ctx.caller,
    { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}), format: exportFormat(ctx.query, ctx.headers.accept) },
    ctx.sink,
  );
  if (written instanceof Failure) return written;
  return { streamed: true };
}
