export enum LedgerError {
  InsufficientFunds = 'insufficient_funds',
  ReferenceConflict = 'reference_conflict',
  ReservationNotFound = 'reservation_not_found',
  AlreadySettled = 'already_settled',
  AlreadyReleased = 'already_released',
  CustomerNotFound = 'customer_not_found',
  InvalidAmount = 'invalid_amount',
}

export const isLedgerError = (value: unknown): value is LedgerError => Object.values(LedgerError).includes(value as LedgerError);
