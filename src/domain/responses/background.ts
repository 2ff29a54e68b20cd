// `background: true` on POST /v1/responses: an asynchronous task like a video. The hold is taken
// with the task row in one transaction (video_tasks, kind `response`: numbers only, never the
// request's content), the provider is asked once (never resubmitted: a submission it did not
// confirm goes to review), and its queued answer is relayed; the video poller then polls the
// response until it is final and settles it once from its usage (background-outcome.ts).
import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { KeyLimitAbort, LedgerAbort, type Ledger } from '../../ledger/service.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { UpstreamError } from '../../providers/types.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { routeCost } from '../../pricing/upstream-cost.ts';
import { spliceFirstMember } from '../../shared/json-splice.ts';
import { Failure } from '../failure.ts';
import { keyLimitFailure } from '../limits/headers.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { PassthroughError, passthroughFailures } from '../passthrough/errors.ts';
import type { PassthroughProtocol, PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { VideoStatus } from '../videos/model.ts';
import { transition } from '../videos/repo.ts';
import { SUBMIT_LEASE_MS } from '../videos/submit.ts';
import type { ResponseIds } from './ids.ts';

export interface BackgroundDeps {
  db: Knex;
  ledger: Ledger;
  catalogue: CatalogueStore;
  passthrough: Passthrough;
  ids: ResponseIds;
  pollMs: number;
  /** How long a background response may take before it goes to review (default 48 h). */
  deadlineMs?: number;
}

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export async function createBackground(deps: BackgroundDeps, protocol: PassthroughProtocol, sent: PassthroughRequest, sink: Sink): Promise<PassthroughResult> {
  if (sent.body.stream === true)
    return {
      failure: passthroughFailures.invalid('stream', 'A background response is not streamed here: send stream false and poll GET /v1/responses/{response_id}.'),
      log: {},
    };
  const resolved = await deps.passthrough.resolve(protocol, sent);
  if (resolved instanceof Failure) return { failure: resolved, log: {} };
  const { model, request } = resolved; // the request as it goes upstream (a substitute's output cap applied)
  const inspected = protocol.inspect(request, model);
  if (inspected instanceof Failure) return { failure: inspected, log: { model: model.id, ...resolved.adaptation.log } };
  const route = resolved.routes[0]!; // one submission only: a second route could run it twice
  const taskId = `vt_${randomBase62(24)}`;
  const log: LogFields = { model: model.id, provider: route.provider.id, stream: false, ...resolved.adaptation.log };
  try {
    await deps.db.transaction(async (trx) => {
      await trx('video_tasks').insert({
        id: taskId,
        kind: 'response',
        customer_id: request.caller.customerId,
        key_id: request.caller.keyId,
        model_id: model.id,
        provider_id: route.provider.id,
        upstream_model: route.upstreamModel,
        status: VideoStatus.Submitting,
        request: JSON.stringify({ input_tokens: inspected.inputTokens, max_output_tokens: inspected.maxOutputTokens }),
        price: JSON.stringify({ ...resolved.price, currency: deps.catalogue.current().currency, version: model.priceVersion.version }),
        price_version_id: model.priceVersion.id.toString(),
        upstream_cost: JSON.stringify(routeCost(route)),
        reserved: '0',
        request_hash: request.requestId,
        next_poll_at: new Date(Date.now() + SUBMIT_LEASE_MS),
        deadline_at: new Date(Date.now() + (deps.deadlineMs ?? 48 * 3_600_000)),
        cancellable: true,
      });
      const reserved = await deps.ledger.reserveWithin(trx, {
        ref: taskId,
        kind: 'video',
        customerId: request.caller.customerId,
        bound: { lines: protocol.boundLines(resolved.price, inspected) },
        purpose: { response_task_id: taskId, model: model.id, key_id: request.caller.keyId, request_id: request.requestId },
        priceVersionId: model.priceVersion.id,
        ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
        limits: request.caller.limited,
      });
      await trx('video_tasks').where({ id: taskId }).update({ reserved: reserved.amount.toString() });
    });
  } catch (error) {
    if (error instanceof LedgerAbort && error.code === LedgerError.InsufficientFunds)
      return { failure: passthroughFailures.insufficientBalance('its input plus the most output it may produce'), log };
    if (error instanceof KeyLimitAbort) return { failure: keyLimitFailure(error.refusal, 'openai'), log };
    throw error;
  }

  const call = await protocol.upstream(request, route, inspected);
  const answer =
    call instanceof UpstreamError
      ? call
      : await callUpstream({
          url: call.url,
          headers: call.headers,
          body: call.body,
          connectMs: route.provider.timeouts.connect_ms,
          proxy: route.provider.proxy,
          firstByteMs: route.provider.timeouts.response_ms,
          idleMs: route.provider.timeouts.idle_ms,
          requestIdHeader: call.requestIdHeader,
        });
  const unconfirmed = async (message: string) => {
    await transition(deps.db, taskId, VideoStatus.Submitting, {
      status: VideoStatus.Review,
      error: JSON.stringify({ code: 'submission_unconfirmed', message }),
      next_poll_at: null,
    });
  };
  if (answer instanceof UpstreamError) {
    if (answer.kind !== 'status') {
      await unconfirmed('The provider did not confirm the background response.'); // it may run it: never release blindly
      return { failure: new Failure(answer.kind === 'timeout' ? PassthroughError.UpstreamTimeout : PassthroughError.UpstreamUnreachable, ''), log };
    }
    await deps.ledger.release({ ref: taskId, purpose: { reason: `upstream refused: ${answer.status}` } });
    await transition(deps.db, taskId, VideoStatus.Submitting, {
      status: VideoStatus.Failed,
      error: JSON.stringify({ code: 'upstream_rejected', message: 'The provider rejected the background response.' }),
      next_poll_at: null,
      completed_at: deps.db.fn.now(),
    });
    return { failure: protocol.failure(answer, route, model.id), log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
  }
  const text = await collect(answer.body, MAX_ANSWER_BYTES);
  let response: { id?: unknown; status?: unknown } | undefined;
  try {
    response = JSON.parse(text) as typeof response;
  } catch {
    response = undefined;
  }
  if (!response || typeof response.id !== 'string') {
    await unconfirmed('The provider answered the background response without an id.');
    return { failure: new Failure(PassthroughError.UpstreamInvalidResponse, ''), log };
  }
  await transition(deps.db, taskId, VideoStatus.Submitting, {
    status: VideoStatus.Queued,
    upstream_task_id: response.id,
    upstream_status: typeof response.status === 'string' ? response.status : null,
    next_poll_at: new Date(Date.now() + deps.pollMs),
  });
  deps.ids.record({
    response_id: response.id,
    customer_id: request.caller.customerId,
    key_id: request.caller.keyId,
    provider_id: route.provider.id,
    model_id: model.id,
    upstream_model: route.upstreamModel,
    request_id: request.requestId,
  });
  const out = route.upstreamModel === model.id ? text : (spliceFirstMember(text, 'model', route.upstreamModel, model.id) ?? text);
  sink.send(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }, out);
  return { log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
}
