import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { walletToWire } from '../serialize/account.ts';

export async function wallet_get(ctx: PublicContext<'wallet_get'>): Promise<Ok<PublicOperations, 'wallet_get'>> {
  const { account } = ctx.services;
  const { balance, freeQuota } = await account.wallet(ctx.caller); // the spec requires a key
  return { status: 200, body: walletToWire(account.currency(), balance, freeQuota) };
}
