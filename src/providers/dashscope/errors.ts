// DashScope's refusals (`{"request_id", "code", "message"}` with the HTTP status) as the gateway
// treats them on submit:
//   Throttling, Throttling.*  the account's limits, shared by every key of the root account (RPM,
//                             concurrent tasks): 429 with code provider_concurrency, so the fair
//                             queue can hold the task and retry it
//   Arrearage                 the account is in arrears: a provider-account failure (503), never
//                             shown to the customer as it came
//   InvalidParameter and other 400s  the request: 400 with DashScope's message (sanitised by the domain)
// Anything else (401 InvalidApiKey, 403 AccessDenied, 5xx) stays as it is: the domain answers 502.
import { UpstreamError } from '../types.ts';

export function dashscopeError(body: string | undefined): { code: string | undefined; message: string | undefined } {
  try {
    const parsed = JSON.parse(body ?? '') as { code?: unknown; message?: unknown };
    return {
      code: typeof parsed.code === 'string' ? parsed.code : undefined,
      message: typeof parsed.message === 'string' ? parsed.message : undefined,
    };
  } catch {
    return { code: undefined, message: undefined };
  }
}

const openaiError = (message: string, type: string, code: string) => JSON.stringify({ error: { message, type, code } });

export function submitRefusal(error: UpstreamError): UpstreamError {
  if (error.kind !== 'status') return error;
  const { code, message } = dashscopeError(error.body);
  const again = (status: number, retryable: boolean, body: string) =>
    new UpstreamError('status', retryable, status, body, error.upstreamRequestId, error.headers);
  if (error.status === 429 || code === 'Throttling' || code?.startsWith('Throttling.'))
    return again(429, true, openaiError('The provider account is at its limit of concurrent tasks; retry later.', 'rate_limit_error', 'provider_concurrency'));
  // For the operator's logs: the code, not DashScope's text. The domain answers the customer 502.
  if (code === 'Arrearage')
    return again(503, false, openaiError('The provider account is in arrears (DashScope Arrearage) and takes no tasks.', 'api_error', 'provider_account'));
  if (error.status === 400)
    // Without its final period: the domain ends the sentence it quotes this in.
    return again(
      400,
      false,
      openaiError(message?.replace(/\.\s*$/, '') || 'The provider refused a parameter', 'invalid_request_error', code ?? 'InvalidParameter'),
    );
  return error;
}
