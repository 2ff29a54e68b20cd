// Steps the video adapters share, whatever their wire: reading a submission's answer, confirming a
// cancel, and finding a finished task's file by polling it.
import type { JsonAnswer } from './json-http.ts';
import { UpstreamError } from './types.ts';
import type { VideoAssetLocation, VideoPoll } from './video.ts';

/** A submission's answer: the provider's id of the new task, or a protocol failure when it named none. */
export const submittedAs = (upstreamId: string | undefined, status: number): { upstreamId: string } | UpstreamError =>
  upstreamId ? { upstreamId } : new UpstreamError('protocol', false, status);

/** A provider's refusal of a cancel (a 4xx, not a rate limit) is an answer: the task goes on. */
export const refusedCancel = (error: UpstreamError): 'refused' | UpstreamError =>
  error.status && error.status < 500 && error.status !== 429 ? 'refused' : error;

/** A cancel the provider took: `cancelled` only once its poll shows the task cancelled. */
export async function confirmedCancel(
  answer: JsonAnswer | UpstreamError,
  poll: () => Promise<VideoPoll | UpstreamError>,
): Promise<'cancelled' | 'refused' | UpstreamError> {
  if (answer instanceof UpstreamError) return refusedCancel(answer);
  const after = await poll();
  return !(after instanceof UpstreamError) && after.status === 'cancelled' ? 'cancelled' : 'refused';
}

/**
 * A finished task's file where its poll says it is: the supplier's URL, fetched without our
 * credential. `gone` when the provider no longer has the task (`goneStatuses`) or names no file.
 */
export function locatedByPoll(task: VideoPoll | UpstreamError, goneStatuses: readonly number[] = [404]): VideoAssetLocation | 'gone' | UpstreamError {
  if (task instanceof UpstreamError) return task.status !== undefined && goneStatuses.includes(task.status) ? 'gone' : task;
  return task.status === 'completed' && task.assetUrl ? { url: task.assetUrl, withCredential: false } : 'gone';
}
