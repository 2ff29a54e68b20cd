export enum LedgerError {
  InsufficientFunds = 'insufficient_funds',
  ReferenceConflict = 'reference_conflict',
  ReservationNotFound = 'reservation_not_found',
  AlreadySettled = 'already_settled',
  AlreadyReleased = 'already_released',
  /** A credit grant: its gateway process ends it (given back when idle, at shutdown, or swept once the process is gone). */
  ReservationIsGrant = 'reservation_is_grant',
  CustomerNotFound = 'customer_not_found',
  InvalidAmount = 'invalid_amount',
  /** The wallet's running totals would pass what they can hold (9,223,372,036,854.775807). */
  WalletLimitExceeded = 'wallet_limit_exceeded',
  /** The key's requests-per-minute or concurrency limit is reached (the OpenAI code for a 429). */
  KeyRateLimited = 'rate_limit_exceeded',
  /** The request's reservation would take the key past its spend limit. */
  KeySpendLimitExceeded = 'key_spend_limit_exceeded',
}

export const isLedgerError = (value: unknown): value is LedgerError => Object.values(LedgerError).includes(value as LedgerError);
