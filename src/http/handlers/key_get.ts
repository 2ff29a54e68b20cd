import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { accountKeyToWire } from '../serialize/account.ts';

export async function key_get(ctx: RequestContext): Promise<Ok<PublicOperations, 'key_get'>> {
  const { account } = ctx.services;
  const { key, spend } = await account.key(ctx.caller!);
  return { status: 200, body: accountKeyToWire(key, spend, account.currency()) };
}
