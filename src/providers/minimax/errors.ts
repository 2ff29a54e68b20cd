// MiniMax's refusals of a new task, as the gateway's queue needs them (../refusals.ts). MiniMax
// answers a refusal either as an HTTP error, {"type": "error", "error": {"type", "message",
// "http_code"}} (429 rate_limit_error, 402 insufficient_balance_error), or as 200 with a nonzero
// `base_resp.status_code` (1002 rate limit, 1008 insufficient balance; openapi/upstream/minimax-video-v2.yaml).
import { accountRefusal, concurrencyRefusal } from '../refusals.ts';
import { UpstreamError } from '../types.ts';

export function minimaxSubmitRefusal(error: UpstreamError): UpstreamError {
  if (error.kind !== 'status') return error;
  if (error.status === 429) return concurrencyRefusal('MiniMax throttled the account (rate_limit_error)', error.headers);
  if (error.status === 402) return accountRefusal('MiniMax refused the account: insufficient_balance_error');
  return error;
}

/** A `base_resp` refusal (status code not 0) of a submission. */
export function minimaxStatusRefusal(code: number, message: string): UpstreamError {
  if (code === 1002) return concurrencyRefusal(`MiniMax throttled the account (${code})`);
  if (code === 1008) return accountRefusal(`MiniMax refused the account: insufficient balance (${code})`);
  return new UpstreamError('status', false, 400, JSON.stringify({ error: { message } }));
}
