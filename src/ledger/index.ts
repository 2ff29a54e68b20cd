// The ledger's face: the book (createLedger, Ledger) with its errors and rows, and the statements
// the holds runtime runs inside the ledger's transactions (grant statements, the wallet queue).
// Code outside src/ledger imports from here only (ESLint's `faces`); scripts/faces.mjs adds a name
// an outside import needs.
export { type Charged, type ChargeInput } from './charge.ts';
export { type Charge, chargeAmount, unitsWanted } from './context.ts';
export { isLedgerError, LedgerError } from './errors.ts';
export { periodEnd, periodStart } from './free-quota.ts';
export { chargeBatch, type ChargeItem, growGrant, shrinkGrant } from './grant-statements.ts';
export { waivedOn } from './owed.ts';
export { type ReservationFilter } from './queries.ts';
export { customerExists, type EntryRow, type ReservationRow } from './repo.ts';
export { type Purpose, type ReserveInput } from './reserve.ts';
export {
  type AccountBalance,
  type Balance,
  createLedger,
  KeyLimitAbort,
  KeyLimitRefusal,
  type KeySpend,
  type Ledger,
  LedgerAbort,
  type Posted,
  type PricedDifference,
  type RateState,
  type ReconciliationMismatch,
  type Released,
  type Settled,
} from './service.ts';
export { type WalletQueue } from './wallet-queue.ts';
