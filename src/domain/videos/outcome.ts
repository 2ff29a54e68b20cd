// Applies what an upstream said about a task: progress, settlement by delivered output, release,
// or review. Ledger operations are idempotent by task id and the status change is guarded, so a
// poll applied twice (two pollers, a cancel racing a poll) takes effect once.
import { isLedgerError, LedgerError } from '../../ledger/errors.ts';
import type { Ledger } from '../../ledger/service.ts';
import type { Logger } from '../../logger.ts';
import { pricedTier } from '../../catalogue/video-tiers.ts';
import { billedSeconds, videoLines, type CostLine } from '../../pricing/cost.ts';
import { upstreamCost } from '../../pricing/upstream-cost.ts';
import type { TokenPrice, VideoPrice } from '../../catalogue/types.ts';
import { sanitizeUpstreamMessage } from '../../providers/sanitize.ts';
import type { VideoPoll } from '../../providers/video.ts';
import { LIVE_STATUSES, VideoStatus, type VideoTaskRow } from './model.ts';
import { NOW, type Transition } from './repo.ts';

export interface OutcomeDeps {
  ledger: Ledger;
  logger: Logger;
  /** The guarded status change: alone (a customer's cancel) or batched (the poller's lanes). */
  transition: Transition;
}

const json = (value: unknown) => JSON.stringify(value);

export async function toReview(deps: OutcomeDeps, task: VideoTaskRow, code: string, message: string, extra: Record<string, unknown> = {}): Promise<void> {
  deps.logger.warn({ video_task_id: task.id, code }, 'video task needs review');
  await deps.transition(task.id, LIVE_STATUSES, {
    status: VideoStatus.Review,
    error: json({ code, message }),
    next_poll_at: null,
    lease_until: null,
    ...extra,
  });
}

/** A provider's failure as the customer sees it: its code, and its text without hosts, ids or our upstream model name. */
function customerError(task: VideoTaskRow, poll: VideoPoll): { code: string; message: string } {
  const fallback = `The provider reports the task ${poll.upstreamStatus}.`;
  if (!poll.error) return { code: poll.upstreamStatus, message: fallback };
  const message = sanitizeUpstreamMessage(poll.error.message, [[task.upstream_model, task.model_id]]);
  return { code: /^[A-Za-z0-9_.-]{1,64}$/.test(poll.error.code) ? poll.error.code : poll.upstreamStatus, message: message || fallback };
}

export async function settleFromPoll(deps: OutcomeDeps, task: VideoTaskRow, poll: VideoPoll, pollMs: number): Promise<void> {
  const { ledger } = deps;
  const seen = { upstream_status: poll.upstreamStatus, result: json(poll.raw) };
  switch (poll.status) {
    case 'queued':
    case 'in_progress':
      await deps.transition(task.id, LIVE_STATUSES, {
        ...seen,
        status: poll.status === 'queued' ? VideoStatus.Queued : VideoStatus.InProgress,
        progress: poll.progress,
        next_poll_at: new Date(Date.now() + pollMs),
        lease_until: null,
      });
      return;
    case 'failed':
    case 'cancelled':
      // Already settled means another path confirmed delivery first; that one owns the status.
      if ((await ledger.release({ ref: task.id, purpose: { reason: `upstream ${poll.upstreamStatus}` } })) === LedgerError.AlreadySettled) return;
      await deps.transition(task.id, LIVE_STATUSES, {
        ...seen,
        status: poll.status === 'failed' ? VideoStatus.Failed : VideoStatus.Cancelled,
        error: json(customerError(task, poll)),
        next_poll_at: null,
        lease_until: null,
        completed_at: NOW,
      });
      return;
    case 'unknown':
      // An adapter may explain a status it knows to be undecidable (DashScope's UNKNOWN).
      return poll.error
        ? toReview(deps, task, poll.error.code, poll.error.message, seen)
        : toReview(deps, task, 'unknown_status', `The provider reports a status the gateway does not know: ${poll.upstreamStatus}.`, seen);
    case 'completed': {
      // Charge only for confirmed output: an asset, a duration and a priced tier. A provider that
      // reports no usage bills what was asked: the requested seconds and resolution. Sound is
      // priced at the `+audio` tier where the model has one, as it was reserved.
      const asRequested = poll.billedAsRequested === true;
      const seconds = asRequested ? task.request.seconds : billedSeconds(poll.deliveredSeconds);
      const resolution = asRequested ? task.request.resolution : poll.deliveredResolution;
      const tier = resolution ? pricedTier(task.price.per_second, resolution, task.request.generate_audio === true) : undefined;
      const perSecond = tier ? task.price.per_second[tier] : undefined;
      if (!poll.assetUrl && !poll.deliveryConfirmed) return toReview(deps, task, 'no_asset', 'The provider reports success but delivered no video URL.', seen);
      if (seconds === undefined) return toReview(deps, task, 'no_duration', 'The provider did not report the delivered duration.', seen);
      if (poll.contradiction) return toReview(deps, task, 'contradictory_usage', poll.contradiction, seen);
      if (poll.meteredTier && tier !== undefined && tier !== task.request.resolution)
        return toReview(deps, task, 'contradictory_usage', `The provider metered the tier ${tier}; the task was priced at ${task.request.resolution}.`, seen);
      if (!perSecond) return toReview(deps, task, 'unpriced_tier', `The delivered resolution ${tier ?? '(none)'} has no price.`, seen);
      // With the customer named, settles of one wallet share a statement and a commit: the poller
      // settles many tasks of one customer at once, and alone each would wait on the wallet row.
      const settled = await ledger.settle({
        ref: task.id,
        customerId: task.customer_id,
        charge: { lines: videoLines(perSecond, seconds) },
        // The duration as the provider reported it, for the task's receipt; the upstream cost at the route's cost of acceptance.
        purpose: {
          billed_seconds: seconds,
          tier,
          delivered_seconds: String(poll.deliveredSeconds),
          ...taskCost(task, (price) => videoCostLines(price, tier!, seconds)),
        },
      });
      if (isLedgerError(settled)) {
        deps.logger.error({ video_task_id: task.id, error: settled }, 'video settle refused');
        return toReview(deps, task, 'settle_refused', `The charge could not be posted (${settled}).`, seen);
      }
      await deps.transition(task.id, LIVE_STATUSES, {
        ...seen,
        status: VideoStatus.Completed,
        progress: 100,
        billed_seconds: seconds,
        billed_tier: tier,
        billed_amount: settled.charged.toString(),
        expires_at: poll.expiresAt ? new Date(poll.expiresAt * 1000) : null,
        next_poll_at: null,
        lease_until: null,
        completed_at: NOW,
      });
      return;
    }
  }
}

/**
 * A task's upstream cost for its settle entry: its usage at the route cost it was accepted with
 * (`lines`: undefined when that cost cannot price it). Tasks older than the column record none.
 */
export function taskCost(
  task: VideoTaskRow,
  lines: (price: TokenPrice | VideoPrice) => CostLine[] | undefined,
): { upstream_cost?: ReturnType<typeof upstreamCost> } {
  const route = task.upstream_cost;
  if (!route) return {};
  return { upstream_cost: upstreamCost(route, route.price ? lines(route.price) : undefined) };
}

const videoCostLines = (price: TokenPrice | VideoPrice, tier: string, seconds: number): CostLine[] | undefined => {
  const perSecond = 'per_second' in price ? price.per_second[tier] : undefined;
  return perSecond ? videoLines(perSecond, seconds) : undefined;
};
