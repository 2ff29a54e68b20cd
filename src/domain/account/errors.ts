// What can go wrong in a customer's own account views. Status codes and wire shapes: src/http/errors.ts.
export enum AccountError {
  /** start_date after end_date, or more than a year between them. */
  InvalidDateRange = 'invalid_date_range',
  /** No request or video task of the caller's with this id (or no receipt yet: its charge is not final). */
  RequestNotFound = 'request_not_found',
}
