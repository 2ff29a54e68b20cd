// What can go wrong with redeem codes. Status codes and wire shapes: src/http/errors.ts.
export enum RedeemError {
  /**
   * The one answer to a code that cannot be redeemed: unknown, mistyped, expired, voided, or used
   * (by another customer). Which of these it was is never said.
   */
  CodeRefused = 'redeem_code_refused',
  /** Too many failed attempts from this key or this client address in the current window. */
  AttemptsExceeded = 'redeem_attempts_exceeded',
  BatchNotFound = 'redeem_batch_not_found',
  CodeNotFound = 'redeem_code_not_found',
  /** Voiding a code that was redeemed: its credit stands (an adjustment takes money back). */
  CodeRedeemed = 'redeem_code_redeemed',
  /** A batch that expires before it is minted. */
  ExpiryPassed = 'redeem_expiry_passed',
}
