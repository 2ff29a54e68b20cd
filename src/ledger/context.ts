// What every ledger operation shares: the database, the clock, the per-wallet queue, one-shot
// transactions, and the arithmetic of charges with free units.
import type { Knex } from 'knex';
import type { FreeQuota } from '../catalogue/types.ts';
import { applyFree, costOf, type CostLine } from '../pricing/cost.ts';
import { type LedgerError } from './errors.ts';
import { reserveBatch, settleBatch } from './statements.ts';
import { createWalletQueue, type WalletQueue } from './wallet-queue.ts';

/** What a reservation or settlement costs: a fixed amount, or usage lines priced with free units. */
export type Charge = { amount: bigint } | { lines: CostLine[] };

/** Upper bound on any single amount: 10^15 micro-units (a billion currency units). */
export const MAX_AMOUNT = 1_000_000_000_000_000n;

export const UNIQUE_VIOLATION = '23505';

/** Thrown inside a ledger transaction to roll it back with an expected failure. */
export class LedgerAbort extends Error {
  constructor(readonly code: LedgerError) {
    super(code);
  }
}

export interface LedgerContext {
  db: Knex;
  now(): Date;
  wallets: WalletQueue;
  /** Runs `work` in one transaction; a LedgerAbort becomes its code, a duplicate reference reruns once. */
  run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T | LedgerError>;
}

export function createLedgerContext(db: Knex, now: () => Date): LedgerContext {
  const wallets = createWalletQueue(db, { reserve: reserveBatch, settle: settleBatch } as never);
  async function run<T>(work: (trx: Knex.Transaction) => Promise<T>, retried = false): Promise<T | LedgerError> {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (error instanceof LedgerAbort) return error.code;
      // A concurrent twin with the same reference committed first: run again, and the work finds
      // its row and replays (or reports a conflict) instead of failing.
      if (!retried && (error as { code?: unknown }).code === UNIQUE_VIOLATION) return run(work, true);
      throw error;
    }
  }
  return { db, now, wallets, run: (work) => run(work) };
}

export const validAmount = (amount: bigint, allowZero = true): boolean => (allowZero ? amount >= 0n : amount > 0n) && amount <= MAX_AMOUNT;

/** What a charge costs once `freeUnits` of the model's allowance are spent on it. */
export function chargeAmount(charge: Charge, freeUnits: bigint, unit: string | null): { amount: bigint; freeUnitsUsed: bigint; freeAmount: bigint } {
  if ('amount' in charge) return { amount: charge.amount, freeUnitsUsed: 0n, freeAmount: 0n };
  if (unit === 'requests') {
    const full = costOf(charge.lines);
    return freeUnits > 0n ? { amount: 0n, freeUnitsUsed: 1n, freeAmount: full } : { amount: full, freeUnitsUsed: 0n, freeAmount: 0n };
  }
  return applyFree(charge.lines, freeUnits);
}

/**
 * A charge's purpose with what it was priced from (`priced`, src/pricing/priced.ts): a fixed
 * amount (a checkpoint, an operator's figure) is priced as itself; usage lines bring their own.
 */
export function withPriced(purpose: Record<string, unknown> | undefined, charge: Charge): Record<string, unknown> {
  if (purpose?.priced !== undefined || !('amount' in charge)) return purpose ?? {};
  return { ...purpose, priced: { amount: charge.amount.toString() } };
}

export const unitsWanted = (charge: Charge, quota: FreeQuota): bigint =>
  'amount' in charge ? 0n : quota.unit === 'requests' ? 1n : charge.lines.reduce((sum, line) => sum + line.units, 0n);
