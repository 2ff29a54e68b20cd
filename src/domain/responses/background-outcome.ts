// What a background response's status means for its hold, applied by the video poller (kind
// `response`) and after a customer's cancel: queued or in progress, poll again; final with usage
// (completed, incomplete, or failed and cancelled when the provider counted work), settle once
// from it at the price the task was accepted with; failed or cancelled without usage, release;
// completed without usage, a status the gateway does not know, or a response the provider no
// longer has: review (an operator settles or releases, POST /admin/v1/video-tasks/{id}/resolve).
import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';
import type { TokenPrice } from '../../catalogue/types.ts';
import { isLedgerError, LedgerError } from '../../ledger/errors.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { OPENAI_REQUEST_ID_HEADER, openaiResponsesHeaders, openaiResponsesUrl } from '../../providers/openai-responses/headers.ts';
import { UpstreamError } from '../../providers/types.ts';
import { LIVE_STATUSES, VideoStatus, type VideoTaskRow } from '../videos/model.ts';
import { taskCost, toReview, type OutcomeDeps } from '../videos/outcome.ts';
import { NOW } from '../videos/repo.ts';
import type { TaskKindPoller } from '../videos/worker.ts';
import { isRecord } from './fields.ts';
import type { ResponseIds } from './ids.ts';
import { ResponsesUsage } from './usage.ts';

interface TaskNumbers {
  input_tokens: number;
  max_output_tokens: number;
}

export async function applyResponse(
  deps: OutcomeDeps,
  task: VideoTaskRow,
  response: Record<string, unknown>,
  pollMs: number,
  /** Told the context a request chained to this response carries, once the provider reports it. */
  noteContext?: (responseId: string, tokens: number) => void,
): Promise<void> {
  const status = typeof response.status === 'string' ? response.status : 'unknown';
  const seen = { upstream_status: status.slice(0, 64) };
  if (status === 'queued' || status === 'in_progress') {
    await deps.transition(task.id, LIVE_STATUSES, {
      ...seen,
      status: status === 'queued' ? VideoStatus.Queued : VideoStatus.InProgress,
      next_poll_at: new Date(Date.now() + pollMs),
      lease_until: null,
    });
    return;
  }
  if (!['completed', 'incomplete', 'failed', 'cancelled'].includes(status))
    return toReview(deps, task, 'unknown_status', `The provider reports a status the gateway does not know: ${seen.upstream_status}.`, seen);
  const numbers = task.request as unknown as TaskNumbers;
  const usage = new ResponsesUsage(numbers.input_tokens, numbers.max_output_tokens);
  usage.observeResponse(response);
  if (!usage.reported()) {
    if (status === 'completed' || status === 'incomplete')
      return toReview(deps, task, 'no_usage', 'The provider reports the response finished but not its usage.', seen);
    if ((await deps.ledger.release({ ref: task.id, purpose: { reason: `upstream ${status}` } })) === LedgerError.AlreadySettled) return;
    await deps.transition(task.id, LIVE_STATUSES, {
      ...seen,
      status: status === 'failed' ? VideoStatus.Failed : VideoStatus.Cancelled,
      error: JSON.stringify({ code: status, message: `The provider reports the response ${status}.` }),
      next_poll_at: null,
      lease_until: null,
      completed_at: NOW,
    });
    return;
  }
  const context = usage.contextTokens();
  if (context !== undefined && task.upstream_task_id) noteContext?.(task.upstream_task_id, context);
  const bill = usage.bill(task.price as unknown as TokenPrice);
  const upstream = taskCost(task, (price) => ('per_second' in price ? undefined : usage.bill(price).lines));
  const settled = await deps.ledger.settle({
    ref: task.id,
    customerId: task.customer_id,
    charge: { lines: bill.lines },
    purpose: { ...bill.log, status, ...upstream },
  });
  if (isLedgerError(settled)) {
    if (settled === LedgerError.AlreadySettled) return;
    deps.logger.error({ video_task_id: task.id, error: settled }, 'background response settle refused');
    return toReview(deps, task, 'settle_refused', `The charge could not be posted (${settled}).`, seen);
  }
  // `completed` is the task's word for settled by usage; the response's own status stays in upstream_status.
  await deps.transition(task.id, LIVE_STATUSES, {
    ...seen,
    status: VideoStatus.Completed,
    progress: 100,
    billed_amount: settled.charged.toString(),
    next_poll_at: null,
    lease_until: null,
    completed_at: NOW,
  });
}

/** GET /responses/{id} on the route that serves it, as the poller's lanes call it. */
export function backgroundPoller(deps: { catalogue: CatalogueStore; ids?: ResponseIds }): TaskKindPoller {
  return {
    async poll(task, { outcome, backoff, pollMs }) {
      const provider = deps.catalogue.current().providers.get(task.provider_id);
      if (!provider?.baseUrl || !task.upstream_task_id) return backoff();
      const answer = await callUpstream({
        url: openaiResponsesUrl(provider.baseUrl, `/${encodeURIComponent(task.upstream_task_id)}`),
        method: 'GET',
        headers: openaiResponsesHeaders(provider, false),
        connectMs: provider.timeouts.connect_ms,
        proxy: provider.proxy,
        firstByteMs: provider.timeouts.response_ms,
        idleMs: provider.timeouts.idle_ms,
        requestIdHeader: OPENAI_REQUEST_ID_HEADER,
      });
      if (answer instanceof UpstreamError) {
        if (answer.status === 404) return toReview(outcome, task, 'response_gone', 'The provider no longer has the response; its usage cannot be confirmed.');
        return backoff(); // poll errors and 429/5xx never end a task
      }
      let response: unknown;
      try {
        response = JSON.parse(await collect(answer.body, 64 * 1024 * 1024));
      } catch {
        return backoff();
      }
      if (!isRecord(response)) return backoff();
      await applyResponse(outcome, task, response, pollMs, (id, tokens) => deps.ids?.usage(id, tokens));
    },
  };
}

/** The background task of a response the customer owns, if it has one still live. */
export async function liveBackgroundTask(db: Knex, customerId: string, responseId: string): Promise<VideoTaskRow | undefined> {
  return db<VideoTaskRow>('video_tasks')
    .where({ kind: 'response', upstream_task_id: responseId, customer_id: customerId })
    .whereIn('status', LIVE_STATUSES)
    .first();
}
