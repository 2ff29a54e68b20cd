import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { accountKeyToWire } from '../serialize/account.ts';

export async function key_get(ctx: PublicContext<'key_get'>): Promise<Ok<PublicOperations, 'key_get'>> {
  const { account } = ctx.services;
  const { key, spend } = await account.key(ctx.caller);
  return { status: 200, body: accountKeyToWire(key, spend, account.currency()) };
}
