/**
 * The two wire error shapes, and the one place that decides which a path uses:
 * Anthropic's on `/v1/messages*`, `{"error":{...}}` everywhere else.
 */

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string | null;
}

export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

/** A failure on its way to the client, independent of the shape it will take. */
export interface Problem {
  status: number;
  /** The error type in the `{"error":{...}}` shape. */
  type: string;
  message: string;
  code?: string | null;
  param?: string | null;
  /** Overrides the Anthropic error type derived from the status. */
  anthropicType?: AnthropicErrorType;
}

const ANTHROPIC_TYPE_BY_STATUS: Record<number, AnthropicErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicTypeFor(status: number): AnthropicErrorType {
  return ANTHROPIC_TYPE_BY_STATUS[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error');
}

export function usesAnthropicShape(path: string): boolean {
  return path === '/v1/messages' || path.startsWith('/v1/messages/') || path.startsWith('/v1/messages?');
}

export function renderProblem(problem: Problem, path: string, requestId: string): AnthropicErrorBody | ErrorBody {
  if (usesAnthropicShape(path)) {
    return {
      type: 'error',
      error: { type: problem.anthropicType ?? anthropicTypeFor(problem.status), message: problem.message },
      request_id: requestId,
    };
  }
  return {
    error: { message: problem.message, type: problem.type, code: problem.code ?? null, param: problem.param ?? null },
  };
}

export const problems = {
  badRequest: (message: string, param: string | null = null, code: string | null = null): Problem => ({
    status: 400,
    type: 'invalid_request_error',
    message,
    param,
    code,
  }),
  unauthorized: (message = 'Invalid API key.'): Problem => ({
    status: 401,
    type: 'authentication_error',
    message,
    code: 'invalid_api_key',
  }),
  notFound: (message: string, code: string | null = null): Problem => ({
    status: 404,
    type: 'not_found_error',
    message,
    code,
  }),
  modelNotFound: (modelId: string): Problem => ({
    status: 404,
    type: 'invalid_request_error',
    message: `The model \`${modelId}\` does not exist or you do not have access to it.`,
    code: 'model_not_found',
    anthropicType: 'not_found_error',
  }),
  payloadTooLarge: (limitBytes: number): Problem => ({
    status: 413,
    type: 'invalid_request_error',
    message: `Request body exceeds the limit of ${limitBytes} bytes.`,
    code: 'request_too_large',
  }),
  notImplemented: (what: string): Problem => ({
    status: 501,
    type: 'api_error',
    message: `${what} is not implemented yet on this gateway.`,
    code: 'not_implemented',
  }),
  internal: (): Problem => ({
    status: 500,
    type: 'api_error',
    message: 'The gateway failed to process the request. Retry later; quote the request-id header if it persists.',
    code: 'internal_error',
  }),
};
