// The one place that turns a failure into HTTP: every error code of every domain maps here to a
// status and to both wire shapes. Anthropic's `{"type":"error","error":{type,message},"request_id"}`
// on /v1/messages*, Google's `{"error":{code,message,status}}` on /v1beta/* (google-errors.ts),
// `{"error":{message,type,code,param}}` everywhere else.
import { CatalogueError } from '../catalogue/errors.ts';
import { CustomerError } from '../customers/errors.ts';
import { AccountError } from '../domain/account/errors.ts';
import { AlertError } from '../domain/alerts/errors.ts';
import { Failure } from '../domain/failure.ts';
import { PassthroughError } from '../domain/passthrough/errors.ts';
import { RedeemError } from '../domain/redeem/errors.ts';
import { VideoError } from '../domain/videos/errors.ts';
import { LedgerError } from '../ledger/errors.ts';
import { anthropicErrorType } from '../providers/anthropic/errors.ts';
import { renderGoogle, type GoogleErrorBody } from './google-errors.ts';

/** Failures of the transport itself: routing, authentication, bodies. */
export enum HttpError {
  RouteNotFound = 'route_not_found',
  MethodNotAllowed = 'method_not_allowed',
  InvalidApiKey = 'invalid_api_key',
  InvalidAdminToken = 'invalid_admin_token',
  InvalidJson = 'invalid_json',
  InvalidRequest = 'invalid_request',
  RequestTooLarge = 'request_too_large',
  HeadersTooLarge = 'request_headers_too_large',
  MalformedHttp = 'malformed_http',
  RequestTimeout = 'request_timeout',
  ExpectationFailed = 'expectation_failed',
  /** GET /v1/responses without `Upgrade: websocket`: the path takes GET only as a WebSocket. */
  WebSocketRequired = 'websocket_required',
  /** A WebSocket upgrade RFC 6455 does not allow (version, key). */
  WebSocketHandshakeInvalid = 'websocket_handshake_invalid',
  /** WEBSOCKET_MAX_CONNECTIONS are open, or the gateway is draining. */
  WebSocketConnectionsExhausted = 'websocket_connections_exhausted',
  /** A WebSocket reached its age (OpenAI's code): closed, the client opens another. */
  WebSocketLifetimeReached = 'websocket_connection_limit_reached',
  UnsupportedMediaType = 'unsupported_media_type',
  DatabaseUnavailable = 'database_unavailable',
  NotImplemented = 'not_implemented',
  ResponseValidationFailed = 'response_validation_failed',
  Internal = 'internal_error',
}

export type ErrorCode = HttpError | PassthroughError | VideoError | CustomerError | LedgerError | CatalogueError | AccountError | AlertError | RedeemError;

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string | null;
}

export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export type ErrorShape = 'anthropic' | 'openai' | 'google';

interface Mapping {
  status: number;
  /** The `type` of the OpenAI-style shape (Anthropic's follows from the status). */
  type: string;
  /** Said when the failure is a bare code with no message of its own. */
  message?: string;
}

const invalid = (message?: string): Mapping => ({ status: 400, type: 'invalid_request_error', ...(message ? { message } : {}) });
const conflict = (message?: string): Mapping => ({ status: 409, type: 'invalid_request_error', ...(message ? { message } : {}) });
const notFound = (message?: string): Mapping => ({ status: 404, type: 'not_found_error', ...(message ? { message } : {}) });

const MAPPINGS: Record<ErrorCode, Mapping> = {
  [HttpError.RouteNotFound]: notFound(),
  [HttpError.MethodNotAllowed]: { status: 405, type: 'invalid_request_error' },
  [HttpError.InvalidApiKey]: { status: 401, type: 'authentication_error', message: 'Invalid API key.' },
  [HttpError.InvalidAdminToken]: { status: 401, type: 'authentication_error', message: 'Invalid or missing admin token.' },
  [HttpError.InvalidJson]: invalid('The body is not valid JSON.'),
  [HttpError.InvalidRequest]: invalid(),
  [HttpError.RequestTooLarge]: { status: 413, type: 'invalid_request_error' },
  [HttpError.HeadersTooLarge]: { status: 431, type: 'invalid_request_error', message: 'The request line and headers exceed the size limit.' },
  [HttpError.MalformedHttp]: invalid('The request is not valid HTTP/1.1 (request line, header syntax or body framing).'),
  [HttpError.RequestTimeout]: { status: 408, type: 'timeout_error', message: 'The request headers did not arrive in time.' },
  [HttpError.ExpectationFailed]: { status: 417, type: 'invalid_request_error', message: 'The only expectation served is `Expect: 100-continue`.' },
  [HttpError.UnsupportedMediaType]: { status: 415, type: 'invalid_request_error' },
  [HttpError.WebSocketRequired]: {
    status: 426,
    type: 'invalid_request_error',
    message: 'GET /v1/responses opens a WebSocket (send Upgrade: websocket); over plain HTTP call POST /v1/responses.',
  },
  [HttpError.WebSocketHandshakeInvalid]: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The WebSocket handshake needs Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key of 16 bytes in Base64.',
  },
  [HttpError.WebSocketLifetimeReached]: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue.',
  },
  [HttpError.WebSocketConnectionsExhausted]: {
    status: 503,
    type: 'api_error',
    message: 'This gateway has as many WebSocket connections open as it takes; retry shortly or use POST /v1/responses.',
  },
  [HttpError.DatabaseUnavailable]: {
    status: 503,
    type: 'api_error',
    message: 'The gateway cannot reach its database right now. Retry shortly; quote the request-id header if it persists.',
  },
  [HttpError.NotImplemented]: { status: 501, type: 'api_error' },
  [HttpError.ResponseValidationFailed]: { status: 502, type: 'api_error' },
  [HttpError.Internal]: {
    status: 500,
    type: 'api_error',
    message: 'The gateway failed to process the request. Retry later; quote the request-id header if it persists.',
  },

  [PassthroughError.ModelNotFound]: { status: 404, type: 'invalid_request_error' },
  [PassthroughError.WrongEndpoint]: invalid(),
  [PassthroughError.NoProvider]: { status: 503, type: 'api_error' },
  [PassthroughError.InsufficientBalance]: { status: 402, type: 'billing_error' },
  [PassthroughError.InsufficientQuota]: { status: 402, type: 'insufficient_quota' },
  [PassthroughError.ResponseNotFound]: { status: 404, type: 'invalid_request_error' },
  [PassthroughError.UpstreamError]: { status: 502, type: 'api_error' },
  [PassthroughError.UpstreamTimeout]: { status: 504, type: 'timeout_error', message: 'The provider did not answer in time; nothing was charged.' },
  [PassthroughError.UpstreamUnreachable]: { status: 502, type: 'api_error', message: 'The provider could not be reached; nothing was charged.' },
  [PassthroughError.UpstreamInvalidResponse]: { status: 502, type: 'api_error', message: 'The provider returned an invalid response; nothing was charged.' },
  [PassthroughError.UpstreamAuthFailed]: { status: 502, type: 'api_error', message: 'The provider refused the gateway; nothing was charged.' },

  [VideoError.NotVideo]: invalid(),
  [VideoError.InvalidField]: invalid(),
  [VideoError.IdempotencyKeyReused]: { status: 422, type: 'idempotency_error' },
  [VideoError.IdempotencyKeyInUse]: { status: 409, type: 'idempotency_error' },
  [VideoError.TaskNotFound]: notFound(),
  [VideoError.CancelNotSupported]: conflict(),
  [VideoError.TaskNotCancellable]: conflict(),
  [VideoError.TaskNotInReview]: conflict(),
  [VideoError.CancelRefused]: conflict(),
  [VideoError.UpstreamRateLimited]: { status: 429, type: 'rate_limit_error' },
  [VideoError.UpstreamRejected]: invalid(),
  [VideoError.ContentNotAvailable]: notFound(),
  [VideoError.RangeNotSatisfiable]: { status: 416, type: 'invalid_request_error' },

  [CustomerError.CustomerNotFound]: notFound('No customer with this id.'),
  [CustomerError.ExternalReferenceTaken]: conflict('Another customer already has this external_reference.'),
  [CustomerError.ApiKeyNotFound]: notFound('No API key with this id.'),
  [CustomerError.UnknownModel]: invalid('allowed_models names a model that is not in the catalogue.'),
  [CustomerError.InvalidLimit]: invalid('spend_limit.amount must be at most 1000000000.'),
  [CustomerError.ApiKeyRevoked]: conflict('The API key is revoked; revocation is final. Create a new key instead.'),
  [CustomerError.ApiKeyExpired]: { status: 401, type: 'authentication_error', message: 'This API key has expired.' },
  [CustomerError.CustomerSuspended]: { status: 403, type: 'permission_error', message: 'This account is suspended.' },

  [CatalogueError.CatalogueInvalid]: { status: 422, type: 'invalid_request_error' },

  [AccountError.InvalidDateRange]: invalid(),
  [AccountError.RequestNotFound]: notFound(),
  [AccountError.PeriodNotFinal]: { status: 425, type: 'invalid_request_error' },
  [AlertError.WebhookUrlRefused]: invalid(),
  [AlertError.WebhookUrlRequired]: invalid(),

  [RedeemError.CodeRefused]: invalid(),
  [RedeemError.AttemptsExceeded]: { status: 429, type: 'rate_limit_error' },
  [RedeemError.BatchNotFound]: notFound(),
  [RedeemError.CodeNotFound]: notFound(),
  [RedeemError.CodeRedeemed]: conflict(),
  [RedeemError.ExpiryPassed]: invalid(),

  [LedgerError.InsufficientFunds]: { status: 402, type: 'billing_error', message: 'The wallet balance does not cover this amount.' },
  [LedgerError.ReferenceConflict]: conflict('This reference was already used for a different amount or customer.'),
  [LedgerError.ReservationNotFound]: notFound('No reservation with this reference.'),
  [LedgerError.AlreadySettled]: conflict('The reservation is already settled.'),
  [LedgerError.AlreadyReleased]: conflict('The reservation is already released.'),
  [LedgerError.ReservationIsGrant]: conflict('The reservation is a credit grant; the gateway process that holds it ends it.'),
  [LedgerError.InvalidAmount]: invalid('The amount must be positive and at most 1000000000 with at most 6 decimals.'),
  [LedgerError.WalletLimitExceeded]: invalid("The wallet's totals would pass the most it can record (9223372036854.775807); nothing was posted."),
  [LedgerError.KeyRateLimited]: { status: 429, type: 'rate_limit_error', message: "This API key's rate limit is reached." },
  [LedgerError.KeySpendLimitExceeded]: { status: 402, type: 'billing_error', message: "This request would pass this API key's spend limit." },
};

export const shapeOfPath = (path: string): ErrorShape =>
  path === '/v1/messages' || path.startsWith('/v1/messages/') ? 'anthropic' : path.startsWith('/v1beta/') ? 'google' : 'openai';

export function statusOf(failure: Failure): number {
  return failure.details.upstream?.status ?? MAPPINGS[failure.code as ErrorCode]?.status ?? 500;
}

export interface ErrorReply {
  status: number;
  body: AnthropicErrorBody | ErrorBody | GoogleErrorBody;
  headers: Record<string, string>;
}

/** A failure as the client sees it. Codes without a mapping are bugs: they render as 500s. */
export function renderFailure(failure: Failure, shape: ErrorShape, requestId: string): ErrorReply {
  const mapping = MAPPINGS[failure.code as ErrorCode] ?? MAPPINGS[HttpError.Internal];
  const status = failure.details.upstream?.status ?? mapping.status;
  const message = failure.message || mapping.message || `Request failed (${failure.code}).`;
  // Our 409s are final (a reused key, a task in the wrong state): SDKs retry 409s unless told not to.
  const headers = { ...(status === 409 ? { 'x-should-retry': 'false' } : {}), ...failure.details.headers };
  if (shape === 'anthropic') {
    const type = failure.details.upstream?.type ?? anthropicErrorType(status);
    return { status, headers, body: { type: 'error', error: { type, message }, request_id: requestId } };
  }
  const type = failure.details.upstream?.type ?? mapping.type;
  if (shape === 'google') return { ...renderGoogle(failure, status, message), headers };
  return { status, headers, body: { error: { message, type, code: failure.code, param: failure.details.param ?? null } } };
}

/** A bare code (ledger, customers) as a failure with the mapping's own message. */
export const failureOf = (code: ErrorCode, param: string | null = null): Failure => new Failure(code, MAPPINGS[code].message ?? code, { param });
