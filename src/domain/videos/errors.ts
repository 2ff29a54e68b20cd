// What can go wrong with a video task request. Status codes and wire shapes: src/http/errors.ts.
import { sanitizeUpstreamMessage, type UpstreamError, upstreamErrorParts } from '../../providers/index.ts';
import { Failure } from '../failure.ts';

export enum VideoError {
  ModelNotFound = 'model_not_found',
  NotVideo = 'model_not_video',
  InvalidField = 'invalid_field',
  NoProvider = 'no_provider',
  InsufficientBalance = 'insufficient_balance',
  IdempotencyKeyReused = 'idempotency_key_reused',
  IdempotencyKeyInUse = 'idempotency_key_in_use',
  TaskNotFound = 'task_not_found',
  CancelNotSupported = 'cancel_not_supported',
  TaskNotCancellable = 'task_not_cancellable',
  TaskNotInReview = 'task_not_in_review',
  /** The provider will not cancel the task (it goes on). */
  CancelRefused = 'cancel_refused',
  UpstreamRateLimited = 'upstream_rate_limited',
  UpstreamRejected = 'upstream_rejected',
  UpstreamError = 'upstream_error',
  /** The task has no downloadable result (yet, or any more). */
  ContentNotAvailable = 'content_not_available',
  /** The Range asked for lies outside the file. */
  RangeNotSatisfiable = 'range_not_satisfiable',
}

export const videoFailures = {
  modelNotFound: (model: string) =>
    new Failure(VideoError.ModelNotFound, `The model \`${model}\` does not exist or you do not have access to it.`, { param: 'model' }),
  notVideo: (model: string, group: string) =>
    new Failure(
      VideoError.NotVideo,
      `\`${model}\` is not a video model; call ${group === 'chat' ? 'POST /v1/chat/completions' : 'POST /v1/messages'} for it.`,
      { param: 'model' },
    ),
  invalid: (param: string, message: string) => new Failure(VideoError.InvalidField, message, { param }),
  noProvider: (model: string) => new Failure(VideoError.NoProvider, `No provider can serve \`${model}\` right now; nothing was charged.`),
  insufficientBalance: () => new Failure(VideoError.InsufficientBalance, 'Your balance is too low for the requested video (seconds x resolution price).'),
  keyReused: () => new Failure(VideoError.IdempotencyKeyReused, 'This Idempotency-Key was used with a different request body.', { param: 'Idempotency-Key' }),
  keyInFlight: () =>
    new Failure(VideoError.IdempotencyKeyInUse, 'A request with this Idempotency-Key is still being processed; retry shortly.', {
      param: 'Idempotency-Key',
      headers: { 'x-should-retry': 'true', 'retry-after': '1' },
    }),
  taskNotFound: () => new Failure(VideoError.TaskNotFound, 'No video task with this id.', { param: 'task_id' }),
  cancelNotSupported: (model: string) => new Failure(VideoError.CancelNotSupported, `Tasks of \`${model}\` cannot be cancelled.`),
  notCancellable: (status: string) => new Failure(VideoError.TaskNotCancellable, `The task is ${status} and can no longer be cancelled.`),
  notInReview: (status: string) => new Failure(VideoError.TaskNotInReview, `The task is ${status}, not in review.`),
  cancelRefused: () => new Failure(VideoError.CancelRefused, 'The provider refused to cancel the task; it goes on and will be billed by its result.'),
  contentNotAvailable: (why: string) => new Failure(VideoError.ContentNotAvailable, why, { param: 'task_id' }),
  rangeNotSatisfiable: (contentRange: string | undefined) =>
    new Failure(VideoError.RangeNotSatisfiable, 'The requested range lies outside the file.', {
      param: 'Range',
      ...(contentRange ? { headers: { 'content-range': contentRange } } : {}),
    }),
  rateLimited: (headers: Record<string, string>) => new Failure(VideoError.UpstreamRateLimited, 'The provider is rate limiting; retry later.', { headers }),
  upstreamUnreachable: (what: string) => new Failure(VideoError.UpstreamError, `The provider could not be reached; ${what}`),
  /** The task's provider is not enabled on this gateway now (its credential was removed, or it left the catalogue). */
  providerUnavailable: (what: string) => new Failure(VideoError.NoProvider, `The provider of this task is not available right now; ${what}`),
  /**
   * The provider refused a new task: nothing was reserved for long, nothing is charged. Its text
   * is sanitised, with each upstream model name replaced by its public id.
   */
  upstreamRefused(error: UpstreamError, replacements: ReadonlyArray<readonly [string, string]> = []): Failure {
    if (error.status === 429)
      return new Failure(VideoError.UpstreamRateLimited, 'The provider is rate limiting; retry later. Nothing was charged.', { headers: error.headers });
    if (error.status && error.status < 500 && error.status !== 401 && error.status !== 403) {
      const { message } = upstreamErrorParts(error.body);
      const clean = message ? sanitizeUpstreamMessage(message, replacements) : '';
      return new Failure(VideoError.UpstreamRejected, `The provider rejected the request${clean ? `: ${clean}` : ''}. Nothing was charged.`);
    }
    return new Failure(VideoError.UpstreamError, 'The provider failed to accept the task. Nothing was charged.');
  },
};
