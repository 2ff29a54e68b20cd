// The background response task kind (`background: true` on POST /v1/responses): sent once at create
// (background.ts: the content is never stored, so there is no submit from the row and the task
// never waits in the gateway's queue), polled with GET /responses/{id} on the route that served it.
// What a response's status means for its hold: queued or in progress, poll again; final with usage
// (completed, incomplete, or failed and cancelled when the provider counted work), settle once from
// it at the price the task was accepted with; failed or cancelled without usage, release; completed
// without usage, a status the gateway does not know, or a response the provider no longer has:
// review (an operator settles or releases, POST /admin/v1/video-tasks/{id}/resolve).
import type { TokenPrice } from '../../catalogue/types.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { OPENAI_REQUEST_ID_HEADER, openaiResponsesHeaders, openaiResponsesUrl } from '../../providers/openai-responses/headers.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { TaskKind, TaskOutcome } from '../../tasks/kind.ts';
import { TaskStatus, type TaskRow } from '../../tasks/model.ts';
import { isRecord } from './fields.ts';
import type { ResponseIds } from './ids.ts';
import { ResponsesUsage } from './usage.ts';

export const RESPONSE_KIND = 'response';

/** What a background response's row keeps: the hold's numbers, never the request's content. */
export interface ResponseTaskNumbers {
  input_tokens: number;
  max_output_tokens: number;
}

export type ResponseTaskRow = TaskRow<ResponseTaskNumbers, TokenPrice & { currency: string; version: number }>;

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * What a response object (a poll's answer, or a cancel's) means for its task. `noteContext` is told
 * the context a request chained to this response carries, once the provider reports it.
 */
export function readResponse(
  task: ResponseTaskRow,
  response: Record<string, unknown>,
  noteContext?: (responseId: string, tokens: number) => void,
): TaskOutcome {
  const status = typeof response.status === 'string' ? response.status : 'unknown';
  const seen = { upstream_status: status.slice(0, 64) };
  if (status === 'queued' || status === 'in_progress')
    return { outcome: 'running', status: status === 'queued' ? TaskStatus.Queued : TaskStatus.InProgress, seen };
  if (!['completed', 'incomplete', 'failed', 'cancelled'].includes(status))
    return { outcome: 'review', code: 'unknown_status', message: `The provider reports a status the gateway does not know: ${seen.upstream_status}.`, seen };
  const usage = new ResponsesUsage(task.request.input_tokens, task.request.max_output_tokens);
  usage.observeResponse(response);
  if (!usage.reported()) {
    if (status === 'completed' || status === 'incomplete')
      return { outcome: 'review', code: 'no_usage', message: 'The provider reports the response finished but not its usage.', seen };
    return {
      outcome: 'release',
      status: status === 'failed' ? TaskStatus.Failed : TaskStatus.Cancelled,
      reason: `upstream ${status}`,
      error: { code: status, message: `The provider reports the response ${status}.` },
      seen,
    };
  }
  const context = usage.contextTokens();
  if (context !== undefined && task.upstream_task_id) noteContext?.(task.upstream_task_id, context);
  const bill = usage.bill(task.price);
  // `completed` is the task's word for settled by usage; the response's own status stays in upstream_status.
  return { outcome: 'settle', charge: { lines: bill.lines }, purpose: { ...bill.log, status, priced: bill.priced }, seen };
}

/** The kind as the poller's lanes call it: GET /responses/{id} on the route that serves it. */
export function responseTaskKind(deps: { ids?: ResponseIds }): TaskKind<ResponseTaskNumbers, ResponseTaskRow['price']> {
  return {
    name: RESPONSE_KIND,
    async poll(task, provider) {
      const answer = await callUpstream({
        url: openaiResponsesUrl(provider.baseUrl!, `/${encodeURIComponent(task.upstream_task_id!)}`),
        method: 'GET',
        headers: openaiResponsesHeaders(provider, false),
        connectMs: provider.timeouts.connect_ms,
        proxy: provider.proxy,
        firstByteMs: provider.timeouts.response_ms,
        idleMs: provider.timeouts.idle_ms,
        requestIdHeader: OPENAI_REQUEST_ID_HEADER,
      });
      if (answer instanceof UpstreamError) {
        if (answer.status === 404)
          return { outcome: 'review', code: 'response_gone', message: 'The provider no longer has the response; its usage cannot be confirmed.' };
        return { outcome: 'retry' }; // poll errors and 429/5xx never end a task
      }
      let response: unknown;
      try {
        response = JSON.parse(await collect(answer.body, MAX_ANSWER_BYTES));
      } catch {
        return { outcome: 'retry' };
      }
      if (!isRecord(response)) return { outcome: 'retry' };
      return readResponse(task, response, (id, tokens) => deps.ids?.usage(id, tokens));
    },
  };
}
