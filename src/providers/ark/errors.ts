// Ark's refusals of a new task, as the gateway's queue needs them (../refusals.ts). Ark answers
// every throttle of an account as 429 TooManyRequests with a code (common error codes,
// https://www.volcengine.com/docs/82379/1299023): RateLimitExceeded.*, Model/API/AccountRate*,
// InflightBatchsizeExceeded (concurrency), ServerOverloaded, RequestBurstTooFast, and QuotaExceeded,
// which covers the account's cap on queued video tasks (120 per master account) as well as a free
// trial quota used up. Waiting helps with all of them but the trial quota and SetLimitExceeded
// (the spending cap of the account's safe-experience mode: the service is paused until raised).
// Arrears (AccountOverdueError, OperationDenied.ServiceOverdue, 403) need an operator too.
import { accountRefusal, concurrencyRefusal, errorCodeOf } from '../refusals.ts';
import type { UpstreamError } from '../types.ts';

const ACCOUNT_CODES = new Set(['SetLimitExceeded', 'AccountOverdueError', 'OperationDenied.ServiceOverdue']);

export function arkSubmitRefusal(error: UpstreamError): UpstreamError {
  if (error.kind !== 'status') return error;
  const { code, message } = errorCodeOf(error.body);
  if (code && (ACCOUNT_CODES.has(code) || (code === 'QuotaExceeded' && /free trial/i.test(message)))) return accountRefusal(`Ark refused the account: ${code}`);
  if (error.status === 429) return concurrencyRefusal(`Ark throttled the account: ${code ?? 'TooManyRequests'}`, error.headers);
  return error;
}
