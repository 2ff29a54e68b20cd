// Reservations: a hold on part of the balance, before any upstream call.
import type { Knex } from 'knex';
import type { FreeQuota } from '../catalogue/types.ts';
import { chargeAmount, LedgerAbort, UNIQUE_VIOLATION, unitsWanted, validAmount, type Charge, type LedgerContext } from './context.ts';
import { LedgerError } from './errors.ts';
import { holdFreeUnits } from './free-quota.ts';
import { enforceKeyLimits, KeyLimitAbort, lockKey, type KeyLimitRefusal, type RateState } from './key-limits.ts';
import { customerExists, ensureWallet, insertEntry, moveWallet, type ReservationRow } from './repo.ts';
import { reservedBy, reserveItem, reserveStatement } from './statements.ts';

export type Purpose = Record<string, unknown>;

export interface FreeAllowance {
  modelId: string;
  quota: FreeQuota;
}

export interface ReserveInput {
  ref: string;
  customerId: string;
  /** The upper bound of what the request can cost. */
  bound: Charge;
  purpose: Purpose;
  priceVersionId?: bigint | null;
  /** The model's free allowance; units are held for the reservation before money is. */
  free?: FreeAllowance;
  /** `request` (the default) is owned by a process; `video` by its task. */
  kind?: 'request' | 'video';
  /** The gateway process that owns a request's reservation (its sweeper ends it if that process dies). */
  owner?: string | null;
  /**
   * The key (`purpose.key_id`) has limits: checked in the reservation's transaction under the key's
   * lock (key-limits.ts), so never by the one-statement form.
   */
  limits?: boolean;
}

export interface Reserved {
  ref: string;
  amount: bigint;
  freeUnitsHeld: bigint;
  replayed: boolean;
  /** The key's rate-limit state after this reservation, when it has a rate limit. */
  rate?: RateState | null;
}

const keyOf = (input: ReserveInput): string | null => (typeof input.purpose.key_id === 'string' ? input.purpose.key_id : null);

export async function reserve(ctx: LedgerContext, input: ReserveInput): Promise<Reserved | LedgerError | KeyLimitRefusal> {
  if ('amount' in input.bound && !validAmount(input.bound.amount)) return LedgerError.InvalidAmount;
  if (!input.free && !input.limits && (input.kind ?? 'request') === 'request') {
    // The common case in one statement; anything else (replay, shortfall) takes the long way.
    const { amount } = chargeAmount(input.bound, 0n, null);
    if (amount > 0n && validAmount(amount)) {
      const plain = {
        ref: input.ref,
        customerId: input.customerId,
        amount,
        priceVersionId: input.priceVersionId ?? null,
        purpose: input.purpose,
        owner: input.owner ?? null,
      };
      const reserved = await ctx.wallets
        .run(input.customerId, { kind: 'reserve', ref: input.ref, single: reserveStatement(plain), item: reserveItem(plain) })
        .then(reservedBy, (error: unknown) => {
          if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false; // a replay: the long way answers it
          throw error;
        });
      if (reserved) return { ref: input.ref, amount, freeUnitsHeld: 0n, replayed: false };
    }
  }
  try {
    return await ctx.run((trx) => reserveWithin(ctx, trx, input));
  } catch (error) {
    if (error instanceof KeyLimitAbort) return error.refusal;
    throw error;
  }
}

/**
 * The reserve inside the caller's transaction; a failure throws LedgerAbort (a key's limit:
 * KeyLimitAbort), rolling it back.
 */
export async function reserveWithin(ctx: LedgerContext, trx: Knex.Transaction, input: ReserveInput): Promise<Reserved> {
  if ('amount' in input.bound && !validAmount(input.bound.amount)) throw new LedgerAbort(LedgerError.InvalidAmount);
  const existing = await trx('reservations').where({ ref: input.ref }).first<ReservationRow | undefined>();
  if (existing) {
    // The first reserve's amount follows from its bound and the free units it held, so a replay
    // with another bound (or customer) is a different request under a reused reference.
    const replayedAmount = chargeAmount(input.bound, existing.free_units_held, existing.free_unit).amount;
    if (existing.customer_id !== input.customerId || replayedAmount !== existing.amount) throw new LedgerAbort(LedgerError.ReferenceConflict);
    return { ref: existing.ref, amount: existing.amount, freeUnitsHeld: existing.free_units_held, replayed: true };
  }
  if (!(await customerExists(trx, input.customerId))) throw new LedgerAbort(LedgerError.CustomerNotFound);
  // Lock order: the key, the free-quota row, the wallet (a settle: its reservation, then the same).
  const keyId = keyOf(input);
  const key = input.limits && keyId ? await lockKey(trx, keyId) : undefined;
  const hold = input.free
    ? await holdFreeUnits(trx, {
        customerId: input.customerId,
        modelId: input.free.modelId,
        quota: input.free.quota,
        wanted: unitsWanted(input.bound, input.free.quota),
        now: ctx.now(),
      })
    : undefined;
  const { amount } = chargeAmount(input.bound, hold?.units ?? 0n, hold?.unit ?? null);
  if (!validAmount(amount)) throw new LedgerAbort(LedgerError.InvalidAmount);
  const rate = key ? await enforceKeyLimits(trx, keyId!, key, amount) : null;
  await ensureWallet(trx, input.customerId);
  if (!(await moveWallet(trx, input.customerId, { pending: amount }))) throw new LedgerAbort(LedgerError.InsufficientFunds);
  await trx('reservations').insert({
    ref: input.ref,
    customer_id: input.customerId,
    amount: amount.toString(),
    free_model_id: hold?.modelId ?? null,
    free_unit: hold?.unit ?? null,
    free_period_start: hold?.periodStart ?? null,
    free_units_held: (hold?.units ?? 0n).toString(),
    price_version_id: input.priceVersionId?.toString() ?? null,
    purpose: JSON.stringify(input.purpose),
    kind: input.kind ?? 'request',
    owner: input.owner ?? null,
    key_id: keyId,
  });
  await insertEntry(trx, {
    customer_id: input.customerId,
    kind: 'reserve',
    reference: `reserve:${input.ref}`,
    reservation_ref: input.ref,
    amount,
    pending_delta: amount,
    free_units: hold?.units ?? 0n,
    price_version_id: input.priceVersionId ?? null,
    purpose: input.purpose,
  });
  return { ref: input.ref, amount, freeUnitsHeld: hold?.units ?? 0n, replayed: false, rate };
}
