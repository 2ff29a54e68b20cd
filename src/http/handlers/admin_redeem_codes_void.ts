import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { codeToWire } from '../serialize/redeem.ts';

type Body = AdminOperations['admin_redeem_codes_void']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export async function admin_redeem_codes_void(ctx: RequestContext<Body | undefined>): Promise<Ok<AdminOperations, 'admin_redeem_codes_void'> | Failure> {
  const code = await ctx.services.redeem.voidCode(ctx.params.code_id ?? '', ctx.body?.reason ?? null);
  return code instanceof Failure ? code : { status: 200, body: codeToWire(code, ctx.services.discovery.currency()) };
}
