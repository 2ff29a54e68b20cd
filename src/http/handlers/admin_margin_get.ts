import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { marginFiguresToWire } from '../serialize/plans.ts';

export async function admin_margin_get(ctx: AdminContext<'admin_margin_get'>): Promise<Ok<AdminOperations, 'admin_margin_get'> | Failure> {
  const q = ctx.query;
  const report = await ctx.services.billing.margin(q.customer_id, { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}) });
  if (report instanceof Failure) return report;
  return {
    status: 200,
    body: {
      object: 'margin_report',
      currency: ctx.services.discovery.currency(),
      from: report.from.toISOString(),
      to: report.to.toISOString(),
      customer_id: q.customer_id ?? null,
      totals: marginFiguresToWire(report.totals),
      data: report.rows.map((row) => ({ customer_id: row.customerId, model: row.model, ...marginFiguresToWire(row) })),
    },
  };
}
