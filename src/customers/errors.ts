export enum CustomerError {
  CustomerNotFound = 'customer_not_found',
  ExternalReferenceTaken = 'external_reference_taken',
  ApiKeyNotFound = 'api_key_not_found',
  UnknownModel = 'unknown_model',
}
