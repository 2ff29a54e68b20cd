import { isRecord } from '../../shared/records.ts';
// What Google's error bodies say beyond their status: how long a rate-limited client should wait
// (google.rpc.RetryInfo's `retryDelay`, "17s"), for a `retry-after` the provider did not send.

/** The RetryInfo delay of a Google error body in whole seconds (rounded up), as `retry-after` says it. */
export function googleRetryDelay(body: string | undefined): string | undefined {
  try {
    const details = (JSON.parse(body ?? '') as { error?: { details?: unknown } }).error?.details;
    for (const detail of Array.isArray(details) ? details : []) {
      const delay = isRecord(detail) && detail['@type'] === 'type.googleapis.com/google.rpc.RetryInfo' ? detail.retryDelay : undefined;
      const seconds = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
      if (seconds !== undefined) return String(Math.ceil(Number(seconds)));
    }
  } catch {
    /* not Google's error body */
  }
  return undefined;
}
