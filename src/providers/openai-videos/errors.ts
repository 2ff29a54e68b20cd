// Refusals of a new video by OpenAI-videos-compatible providers, as the gateway's queue needs them
// (../refusals.ts): OpenAI answers 429 both for its rate limits (retry later) and for
// `insufficient_quota` (the account's credit or plan is spent: waiting does not help).
import { accountRefusal, concurrencyRefusal, errorCodeOf } from '../refusals.ts';
import type { UpstreamError } from '../types.ts';

export function openaiVideosSubmitRefusal(error: UpstreamError): UpstreamError {
  if (error.kind !== 'status' || error.status !== 429) return error;
  const { code } = errorCodeOf(error.body);
  if (code === 'insufficient_quota') return accountRefusal('The provider refused the account: insufficient_quota');
  return concurrencyRefusal(`The provider throttled the account: ${code ?? 'rate limit'}`, error.headers);
}
