// The `error.type` Anthropic names for each HTTP status, from its errors page
// (docs.claude.com/en/api/errors): the gateway's own refusals on /v1/messages and the simulated
// upstream speak the same names. Other 4xx answers are invalid_request_error, other 5xx api_error.
const TYPE_BY_STATUS: Record<number, string> = {
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

export const anthropicErrorType = (status: number): string => TYPE_BY_STATUS[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error');
