import type { Problem } from '../../http/problem.ts';
import type { UpstreamError } from '../../providers/types.ts';

export const videoProblems = {
  modelNotFound: (model: string): Problem => ({ status: 404, type: 'invalid_request_error', code: 'model_not_found', param: 'model', message: `The model \`${model}\` does not exist or you do not have access to it.` }),
  notVideo: (model: string): Problem => ({ status: 400, type: 'invalid_request_error', code: 'model_not_video', param: 'model', message: `\`${model}\` is not a video model; use /v1/messages for it.` }),
  invalid: (param: string, message: string): Problem => ({ status: 400, type: 'invalid_request_error', code: 'invalid_field', param, message }),
  noRoute: (model: string): Problem => ({ status: 500, type: 'api_error', code: 'no_provider', message: `No provider can serve \`${model}\` right now.` }),
  insufficientBalance: (): Problem => ({ status: 402, type: 'billing_error', code: 'insufficient_balance', message: 'Your balance is too low for the requested video (seconds x resolution price).' }),
  keyReused: (): Problem => ({ status: 422, type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key', message: 'This Idempotency-Key was used with a different request body.' }),
  keyInFlight: (): Problem => ({ status: 409, type: 'idempotency_error', code: 'idempotency_key_in_use', param: 'Idempotency-Key', message: 'A request with this Idempotency-Key is still being processed; retry shortly.' }),
  taskNotFound: (): Problem => ({ status: 404, type: 'not_found_error', code: 'task_not_found', message: 'No video task with this id.' }),
  cancelNotSupported: (model: string): Problem => ({ status: 409, type: 'invalid_request_error', code: 'cancel_not_supported', message: `Tasks of \`${model}\` cannot be cancelled.` }),
  notCancellable: (status: string): Problem => ({ status: 409, type: 'invalid_request_error', code: 'task_not_cancellable', message: `The task is ${status} and can no longer be cancelled.` }),
  upstreamRefused: (error: UpstreamError): Problem =>
    error.status === 429
      ? { status: 429, type: 'rate_limit_error', code: 'upstream_rate_limited', message: 'The provider is rate limiting; retry later. Nothing was charged.' }
      : error.status && error.status < 500
        ? { status: 400, type: 'invalid_request_error', code: 'upstream_rejected', message: `The provider rejected the request: ${upstreamMessage(error)} Nothing was charged.` }
        : { status: 502, type: 'api_error', code: 'upstream_error', message: 'The provider failed to accept the task. Nothing was charged.' },
};

/** The provider's own explanation, without its request ids. */
function upstreamMessage(error: UpstreamError): string {
  try {
    const body = JSON.parse(error.body ?? '') as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message.replace(/Request id:.*$/i, '').trim();
  } catch {
    /* not JSON */
  }
  return `status ${error.status}.`;
}
