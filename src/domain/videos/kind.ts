// The video task kind: a task is sent and polled through its provider's video adapter, and a poll
// reads as progress, settlement by delivered output (the priced resolution tier x whole billed
// seconds, at the price the task was accepted with), release, or review. The engine (src/tasks)
// records what this says; nothing here writes a row or moves money.
import type { VideoPrice } from '../../catalogue/types.ts';
import { pricedTier } from '../../catalogue/video-tiers.ts';
import { billedSeconds, videoLines } from '../../pricing/cost.ts';
import { isConcurrencyRefusal } from '../../providers/refusals.ts';
import { sanitizeUpstreamMessage } from '../../providers/sanitize.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { NormalisedVideoRequest, VideoPoll } from '../../providers/video.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import type { Submission, TaskKind, TaskOutcome } from '../../tasks/kind.ts';
import { TaskStatus, type TaskRow } from '../../tasks/model.ts';
import { videoFailures } from './errors.ts';

/** The price snapshot a video task keeps: per-second prices by tier, the currency and the version. */
export type VideoPriceSnapshot = Pick<VideoPrice, 'per_second'> & { currency: string; version?: number };

export type VideoTaskRow = TaskRow<NormalisedVideoRequest, VideoPriceSnapshot>;

export const VIDEO_KIND = 'video';

export const videoTaskKind: TaskKind<NormalisedVideoRequest, VideoPriceSnapshot> = {
  name: VIDEO_KIND,

  async submit(task, provider): Promise<Submission> {
    const adapter = videoAdapters[provider.protocol];
    const submitted = adapter ? await adapter.submit(provider, task.upstream_model, task.request) : new UpstreamError('connect', true);
    if (!(submitted instanceof UpstreamError)) return { outcome: 'accepted', upstreamId: submitted.upstreamId };
    if (isConcurrencyRefusal(submitted)) return { outcome: 'busy', cause: submitted };
    // The provider may have accepted it: never resubmit, never release blindly.
    if (submitted.kind === 'timeout' || submitted.kind === 'protocol')
      return { outcome: 'unconfirmed', message: 'The provider did not confirm the submission.' };
    const failure = videoFailures.upstreamRefused(submitted, [[task.upstream_model, task.model_id]]);
    return { outcome: 'refused', error: { code: failure.code, message: failure.message }, cause: submitted };
  },

  async poll(task, provider) {
    const adapter = videoAdapters[provider.protocol];
    const poll = adapter ? await adapter.poll(provider, task.upstream_task_id!) : new UpstreamError('connect', true);
    return poll instanceof UpstreamError ? { outcome: 'retry' } : readVideoPoll(task, poll); // poll errors and 429/5xx never fail a task
  },
};

/** A provider's failure as the customer sees it: its code, and its text without hosts, ids or our upstream model name. */
function customerError(task: VideoTaskRow, poll: VideoPoll): { code: string; message: string } {
  const fallback = `The provider reports the task ${poll.upstreamStatus}.`;
  if (!poll.error) return { code: poll.upstreamStatus, message: fallback };
  const message = sanitizeUpstreamMessage(poll.error.message, [[task.upstream_model, task.model_id]]);
  return { code: /^[A-Za-z0-9_.-]{1,64}$/.test(poll.error.code) ? poll.error.code : poll.upstreamStatus, message: message || fallback };
}

/** What an upstream's answer about a video task means (the poller's, or a cancel's look first). */
export function readVideoPoll(task: VideoTaskRow, poll: VideoPoll): TaskOutcome {
  const seen = { upstream_status: poll.upstreamStatus, result: JSON.stringify(poll.raw) };
  const review = (code: string, message: string): TaskOutcome => ({ outcome: 'review', code, message, seen });
  switch (poll.status) {
    case 'queued':
    case 'in_progress':
      return { outcome: 'running', status: poll.status === 'queued' ? TaskStatus.Queued : TaskStatus.InProgress, progress: poll.progress, seen };
    case 'failed':
    case 'cancelled':
      return {
        outcome: 'release',
        status: poll.status === 'failed' ? TaskStatus.Failed : TaskStatus.Cancelled,
        reason: `upstream ${poll.upstreamStatus}`,
        error: customerError(task, poll),
        seen,
      };
    case 'unknown':
      // An adapter may explain a status it knows to be undecidable (DashScope's UNKNOWN).
      return poll.error
        ? review(poll.error.code, poll.error.message)
        : review('unknown_status', `The provider reports a status the gateway does not know: ${poll.upstreamStatus}.`);
    case 'completed': {
      // Charge only for confirmed output: an asset, a duration and a priced tier. A provider that
      // reports no usage bills what was asked: the requested seconds and resolution. Sound is
      // priced at the `+audio` tier where the model has one, as it was reserved.
      const asRequested = poll.billedAsRequested === true;
      const seconds = asRequested ? task.request.seconds : billedSeconds(poll.deliveredSeconds);
      const resolution = asRequested ? task.request.resolution : poll.deliveredResolution;
      const tier = resolution ? pricedTier(task.price.per_second, resolution, task.request.generate_audio === true) : undefined;
      const perSecond = tier ? task.price.per_second[tier] : undefined;
      if (!poll.assetUrl && !poll.deliveryConfirmed) return review('no_asset', 'The provider reports success but delivered no video URL.');
      if (seconds === undefined) return review('no_duration', 'The provider did not report the delivered duration.');
      if (poll.contradiction) return review('contradictory_usage', poll.contradiction);
      if (poll.meteredTier && tier !== undefined && tier !== task.request.resolution)
        return review('contradictory_usage', `The provider metered the tier ${tier}; the task was priced at ${task.request.resolution}.`);
      if (!perSecond || !tier) return review('unpriced_tier', `The delivered resolution ${tier ?? '(none)'} has no price.`);
      return {
        outcome: 'settle',
        charge: { lines: videoLines(perSecond, seconds) },
        // The duration as the provider reported it, for the task's receipt.
        purpose: { billed_seconds: seconds, tier, delivered_seconds: String(poll.deliveredSeconds), priced: { video: { seconds, tier } } },
        billed: { seconds, tier },
        expiresAt: poll.expiresAt ? new Date(poll.expiresAt * 1000) : null,
        seen,
      };
    }
  }
}
