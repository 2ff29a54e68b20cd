import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { auditToWire } from '../serialize/plans.ts';

export async function admin_pricing_audit_list(ctx: AdminContext<'admin_pricing_audit_list'>): Promise<Ok<AdminOperations, 'admin_pricing_audit_list'>> {
  const q = ctx.query;
  const limit = Number(q.limit ?? 50);
  const rows = await ctx.services.plans.audit({
    limit: limit + 1,
    ...(q.subject_id ? { subjectId: q.subject_id } : {}),
    ...(q.before ? { before: BigInt(q.before) } : {}),
  });
  const data = rows.slice(0, limit).map(auditToWire);
  const hasMore = rows.length > limit;
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.id : null } };
}
