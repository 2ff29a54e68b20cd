import { CustomerError } from '../customers/errors.ts';
import { LedgerError } from '../ledger/errors.ts';
import type { ErrorBody } from './problem.ts';

/** Every expected domain failure the HTTP layer can meet, mapped once to status, type and text. */
type DomainError = CustomerError | LedgerError;

const DOMAIN_ERRORS: { [code in DomainError]: { status: number; type: string; message: string } } = {
  [CustomerError.CustomerNotFound]: { status: 404, type: 'not_found_error', message: 'No customer with this id.' },
  [CustomerError.ExternalReferenceTaken]: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Another customer already has this external_reference.',
  },
  [CustomerError.ApiKeyNotFound]: { status: 404, type: 'not_found_error', message: 'No API key with this id.' },
  [LedgerError.InsufficientFunds]: { status: 402, type: 'billing_error', message: 'The wallet balance does not cover this amount.' },
  [LedgerError.ReferenceConflict]: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This reference was already used for a different amount or customer.',
  },
  [LedgerError.ReservationNotFound]: { status: 404, type: 'not_found_error', message: 'No reservation with this reference.' },
  [LedgerError.AlreadySettled]: { status: 409, type: 'invalid_request_error', message: 'The reservation is already settled.' },
  [LedgerError.AlreadyReleased]: { status: 409, type: 'invalid_request_error', message: 'The reservation is already released.' },
  [LedgerError.InvalidAmount]: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amount must be positive and at most 1000000000 with at most 6 decimals.',
  },
  [CustomerError.UnknownModel]: {
    status: 400,
    type: 'invalid_request_error',
    message: 'allowed_models names a model that is not in the catalogue.',
  },
};

/**
 * A typed error reply for a domain failure. The status is asserted by the caller so the reply
 * type-checks against the operation's declared responses.
 */
export function errorReply<S extends number>(status: S, code: DomainError, param: string | null = null): { status: S; body: ErrorBody } {
  const known = DOMAIN_ERRORS[code];
  if (known.status !== status) throw new Error(`${code} maps to ${known.status}, not ${status}`);
  return { status, body: { error: { message: known.message, type: known.type, code, param } } };
}
