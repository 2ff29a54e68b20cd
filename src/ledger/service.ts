// The only code that writes money tables. Every operation is one short transaction, takes effect
// once per reference however often it is repeated, and never runs across an upstream call.
// Expected failures come back as a LedgerError value; bugs and database failures throw.
import type { Knex } from 'knex';
import { accountBalance, freeQuotaUsage, type AccountBalance, type FreeQuotaLeft } from './account.ts';
import type { FreeQuota } from '../catalogue/types.ts';
import { charge, type ChargeInput, type Charged } from './charge.ts';
import { createLedgerContext, type LedgerContext } from './context.ts';
import type { LedgerError } from './errors.ts';
import { adjust, topUp, topUpWithin, type Adjustment, type Posted } from './postings.ts';
import {
  balance,
  debtOutstanding,
  journal,
  listReservations,
  liveOwners,
  reconcile,
  staleHolds,
  walletCount,
  type Balance,
  type ReconciliationMismatch,
  type ReservationFilter,
} from './queries.ts';
import { checkPriced, type PricedCheck, type PricedDifference } from './priced-check.ts';
import type { EntryRow, ReservationRow } from './repo.ts';
import type { KeyLimitRefusal } from './key-limits.ts';
import { keySpend, reconcileKeySpend, type KeySpend, type KeySpendMismatch } from './key-spend.ts';
import { reserve, reserveWithin, type ReserveInput, type Reserved } from './reserve.ts';
import { release, releaseWithin, settle, type Released, type SettleInput, type Settled } from './resolve.ts';

export type { Charge } from './context.ts';
export { LedgerAbort, MAX_AMOUNT } from './context.ts';
export { KeyLimitAbort, KeyLimitRefusal, type RateState } from './key-limits.ts';
export type {
  AccountBalance,
  Balance,
  Charged,
  ChargeInput,
  FreeQuotaLeft,
  KeySpend,
  KeySpendMismatch,
  Posted,
  PricedCheck,
  PricedDifference,
  ReconciliationMismatch,
  Released,
  ReserveInput,
  Reserved,
  Settled,
};

export interface Ledger {
  reserve(input: ReserveInput & { limits?: false }): Promise<Reserved | LedgerError>;
  /** A key's limit refusing the request comes back as a KeyLimitRefusal (`limits` in the input). */
  reserve(input: ReserveInput): Promise<Reserved | LedgerError | KeyLimitRefusal>;
  /**
   * The same reserve inside the caller's transaction (a video task row and its reservation commit
   * together). A failure throws LedgerAbort (a key's limit: KeyLimitAbort), which rolls the
   * caller's transaction back.
   */
  reserveWithin(trx: Knex.Transaction, input: ReserveInput): Promise<Reserved>;
  settle(input: SettleInput): Promise<Settled | LedgerError>;
  release(input: { ref: string; purpose?: Record<string, unknown> }): Promise<Released | LedgerError>;
  /** A release inside the caller's transaction (committed with its own change, or not at all); throws LedgerAbort. */
  releaseWithin(trx: Knex.Transaction, input: { ref: string; purpose?: Record<string, unknown> }): Promise<Released>;
  /** One request's charge from a credit grant (the grant's hold, or the balance once it is gone). */
  charge(input: ChargeInput): Promise<Charged | LedgerError>;
  topUp(input: { ref: string; customerId: string; amount: bigint; purpose?: Record<string, unknown> }): Promise<Posted | LedgerError>;
  /** The same top-up inside the caller's transaction (committed with its own change, or not at all); throws LedgerAbort. */
  topUpWithin(trx: Knex.Transaction, input: { ref: string; customerId: string; amount: bigint; purpose?: Record<string, unknown> }): Promise<Posted>;
  /** Positive credits the wallet, negative debits it (never below zero available: refused, or debt when asked). */
  adjust(input: Adjustment): Promise<Posted | LedgerError>;
  balance(customerId: string): Promise<Balance | LedgerError>;
  /** Newest first; pass the last id seen as `before` for the next page. */
  journal(customerId: string, page: { limit: number; before?: bigint }): Promise<{ entries: EntryRow[]; hasMore: boolean } | LedgerError>;
  reservations(filter: ReservationFilter): Promise<{ rows: ReservationRow[]; hasMore: boolean }>;
  /** The one reservation, or undefined. */
  reservation(ref: string): Promise<ReservationRow | undefined>;
  /** Request holds whose process stopped heartbeating `staleSeconds` ago. */
  staleHolds(staleSeconds: number): Promise<{ count: number; amount: bigint; refs: string[] }>;
  liveOwners(owners: string[], staleSeconds: number): Promise<Set<string>>;
  reconcile(): Promise<ReconciliationMismatch[]>;
  /** Every request and task charged in the window against its usage priced again (src/ledger/priced-check.ts). */
  reconcilePriced(window: { since: Date; until: Date; limit?: number }): Promise<PricedCheck>;
  /** Days on which a key's spend rollup differs from its journal entries. */
  reconcileKeySpend(): Promise<KeySpendMismatch[]>;
  /** What a key has posted today, this month and ever (UTC). */
  keySpend(keyId: string): Promise<KeySpend>;
  /** The customer's own view of its balance (credit grants count as available). */
  accountBalance(customerId: string): Promise<AccountBalance>;
  freeQuotaUsage(customerId: string, models: Array<{ modelId: string; quota: FreeQuota }>): Promise<FreeQuotaLeft[]>;
  walletCount(): Promise<number>;
  /** Customers that owe debt and its total. */
  debtOutstanding(): Promise<{ customers: number; amount: bigint }>;
  /** For the grant pool, which shares the ledger's wallet queue and clock. */
  readonly context: LedgerContext;
}

export function createLedger(deps: { db: Knex; now?: () => Date }): Ledger {
  const ctx = createLedgerContext(deps.db, deps.now ?? (() => new Date()));
  return {
    reserve: ((input: ReserveInput) => reserve(ctx, input)) as Ledger['reserve'],
    reserveWithin: (trx, input) => reserveWithin(ctx, trx, input),
    settle: (input) => settle(ctx, input),
    release: (input) => release(ctx, input),
    releaseWithin: (trx, input) => releaseWithin(trx, input),
    charge: (input) => charge(ctx, input),
    context: ctx,
    topUp: (input) => topUp(ctx, input),
    topUpWithin: (trx, input) => topUpWithin(trx, input),
    adjust: (input) => adjust(ctx, input),
    balance: (customerId) => balance(ctx, customerId),
    journal: (customerId, page) => journal(ctx, customerId, page),
    reservations: (filter) => listReservations(ctx, filter),
    reservation: (ref) => ctx.db('reservations').where({ ref }).first(),
    staleHolds: (staleSeconds) => staleHolds(ctx, staleSeconds),
    liveOwners: (owners, staleSeconds) => liveOwners(ctx, owners, staleSeconds),
    reconcile: () => reconcile(ctx),
    reconcilePriced: (window) => checkPriced(ctx.db, window),
    reconcileKeySpend: () => reconcileKeySpend(ctx.db),
    keySpend: (keyId) => keySpend(ctx.db, keyId),
    accountBalance: (customerId) => accountBalance(ctx.db, customerId),
    freeQuotaUsage: (customerId, models) => freeQuotaUsage(ctx.db, customerId, models, ctx.now()),
    walletCount: () => walletCount(ctx),
    debtOutstanding: () => debtOutstanding(ctx),
  };
}
