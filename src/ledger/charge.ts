// One charge of a request that drew from a credit grant, posted alone: the slow path behind the
// batched flush (a grant gone by then, a batch that could not stand, an outbox replay, the sweeper).
// Takes effect once per request however often it is repeated.
import type { LedgerContext } from './context.ts';
import { LedgerAbort, validAmount } from './context.ts';
import { LedgerError } from './errors.ts';
import { addKeySpend } from './key-spend.ts';
import { findEntry, insertEntry, moveWallet, type ReservationRow } from './repo.ts';

export interface ChargeInput {
  /** The request id; the journal reference is `charge:<ref>`. */
  ref: string;
  grantRef: string;
  customerId: string;
  amount: bigint;
  purpose?: Record<string, unknown>;
}

export interface Charged {
  ref: string;
  charged: bigint;
  /** What the balance could not cover once the grant was gone (not posted). */
  uncovered: bigint;
  replayed: boolean;
  /** The grant's hold paid it (false: the grant was gone and the balance paid it). */
  fromGrant: boolean;
}

export async function charge(ctx: LedgerContext, input: ChargeInput): Promise<Charged | LedgerError> {
  if (!validAmount(input.amount)) return LedgerError.InvalidAmount;
  const keyId = typeof input.purpose?.key_id === 'string' ? input.purpose.key_id : null;
  return ctx.run(async (trx) => {
    const reference = `charge:${input.ref}`;
    const existing = await findEntry(trx, reference);
    if (existing)
      return {
        ref: input.ref,
        charged: existing.amount,
        uncovered: BigInt(String((existing.purpose as { uncovered?: string }).uncovered ?? '0')),
        replayed: true,
        fromGrant: existing.pending_delta !== 0n,
      };
    // Lock order as everywhere: the reservation row, then the wallet.
    const grant = await trx('reservations').where({ ref: input.grantRef }).forUpdate().first<ReservationRow | undefined>();
    if (grant && grant.customer_id !== input.customerId) throw new LedgerAbort(LedgerError.ReferenceConflict);
    if (grant?.status === 'pending' && grant.amount >= input.amount) {
      await moveWallet(trx, input.customerId, { pending: -input.amount, debits: input.amount });
      await trx('reservations')
        .where({ ref: input.grantRef })
        .update({ amount: trx.raw('amount - ?::bigint', [input.amount.toString()]) });
      await insertEntry(trx, {
        customer_id: input.customerId,
        kind: 'charge',
        reference,
        reservation_ref: input.grantRef,
        amount: input.amount,
        debits_delta: input.amount,
        pending_delta: -input.amount,
        purpose: input.purpose ?? {},
        key_id: keyId,
      });
      await addKeySpend(trx, keyId, input.amount);
      return { ref: input.ref, charged: input.amount, uncovered: 0n, replayed: false, fromGrant: true };
    }
    // The grant was returned (or swept) before this charge landed: post it from the balance,
    // as far as the balance covers it.
    const wallet = await trx('wallets')
      .where({ customer_id: input.customerId })
      .forUpdate()
      .first<{ credits_posted: bigint; debits_posted: bigint; debits_pending: bigint } | undefined>();
    const available = wallet ? wallet.credits_posted - wallet.debits_posted - wallet.debits_pending : 0n;
    const charged = available <= 0n ? 0n : available < input.amount ? available : input.amount;
    if (charged > 0n) await moveWallet(trx, input.customerId, { debits: charged });
    const uncovered = input.amount - charged;
    await insertEntry(trx, {
      customer_id: input.customerId,
      kind: 'charge',
      reference,
      reservation_ref: input.grantRef,
      amount: charged,
      debits_delta: charged,
      purpose: { ...input.purpose, grant_gone: true, ...(uncovered > 0n ? { uncovered: uncovered.toString() } : {}) },
      key_id: keyId,
    });
    await addKeySpend(trx, keyId, charged);
    return { ref: input.ref, charged, uncovered, replayed: false, fromGrant: false };
  });
}
