// Two refusals of a new video task every adapter names the same way, whatever its provider's wire
// says (issue 25's contract with the gateway's queue, src/tasks/queue.ts and refusals.ts):
// - the account's concurrency (or rate) is full: a 429 with code `provider_concurrency`; the task
//   waits in the gateway's queue and is sent again with backoff, never failed for it;
// - the account itself cannot take work (arrears, an exhausted balance or plan, a spending cap):
//   a 503 with code `provider_account`; the customer is told the provider failed, never the text.
// Bodies are in the OpenAI error shape and are for logs; clients never see them verbatim.
import { UpstreamError } from './types.ts';

export const PROVIDER_CONCURRENCY = 'provider_concurrency';
export const PROVIDER_ACCOUNT = 'provider_account';

const body = (message: string, type: string, code: string) => JSON.stringify({ error: { message, type, code } });

/** The provider refused a submission because its account runs as many tasks as it may (or its rate is spent). */
export function concurrencyRefusal(message: string, headers: Record<string, string> = {}): UpstreamError {
  return new UpstreamError('status', true, 429, body(message, 'rate_limit_error', PROVIDER_CONCURRENCY), undefined, headers);
}

/** The provider refused a submission for a problem of the account (arrears, balance, plan): an operator must act. */
export function accountRefusal(message: string): UpstreamError {
  return new UpstreamError('status', false, 503, body(message, 'api_error', PROVIDER_ACCOUNT));
}

/** Whether a refused submission may simply be sent again later (the gateway's queue keeps it). */
export const isConcurrencyRefusal = (error: UpstreamError): boolean => error.kind === 'status' && error.status === 429;

/** `error.code` and `error.message` of a JSON error body (`{error: {code, message}}`), when present. */
export function errorCodeOf(text: string | undefined): { code: string | undefined; message: string } {
  try {
    const parsed = JSON.parse(text ?? '') as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    return {
      code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
      message: typeof parsed.error?.message === 'string' ? parsed.error.message : '',
    };
  } catch {
    return { code: undefined, message: '' };
  }
}
