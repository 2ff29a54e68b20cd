export enum CustomerError {
  CustomerNotFound = 'customer_not_found',
  ExternalReferenceTaken = 'external_reference_taken',
  ApiKeyNotFound = 'api_key_not_found',
  UnknownModel = 'unknown_model',
}

export const isCustomerError = (value: unknown): value is CustomerError =>
  Object.values(CustomerError).includes(value as CustomerError);
