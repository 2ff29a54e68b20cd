export enum CustomerError {
  CustomerNotFound = 'customer_not_found',
  ExternalReferenceTaken = 'external_reference_taken',
  ApiKeyNotFound = 'api_key_not_found',
  UnknownModel = 'unknown_model',
  /** A spend limit beyond the largest amount the ledger takes. */
  InvalidLimit = 'invalid_limit',
  /** Changing or rotating a revoked key: revocation is final. */
  ApiKeyRevoked = 'api_key_revoked',
  ApiKeyExpired = 'api_key_expired',
  CustomerSuspended = 'customer_suspended',
}
