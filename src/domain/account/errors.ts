// What can go wrong in a customer's own account views. Status codes and wire shapes: src/http/errors.ts.
export enum AccountError {
  /** start_date after end_date, or more than a year between them. */
  InvalidDateRange = 'invalid_date_range',
  /**
   * The period asked for ends after the watermark: rows can still be written into it (425, with
   * retry-after and the watermark). Without `to`, a read ends at the watermark instead.
   */
  PeriodNotFinal = 'period_not_final',
  /** No request or video task of the caller's with this id (or no receipt yet: its charge is not final). */
  RequestNotFound = 'request_not_found',
}
