// `background: true` on POST /v1/responses: an asynchronous task of the task engine (kind
// `response`, kind.ts). The hold is taken with the task row in one transaction (numbers only,
// never the request's content), the provider is asked once (never resubmitted: a submission it did
// not confirm goes to review), and its queued answer is relayed; the poller then polls the response
// until it is final and settles it once from its usage.
import type { LogFields } from '../../logs/request-logs.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { UpstreamError } from '../../providers/types.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { spliceFirstMember } from '../../shared/json-splice.ts';
import { Failure } from '../failure.ts';
import { keyLimitFailure } from '../limits/headers.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { PassthroughError, passthroughFailures } from '../passthrough/errors.ts';
import type { PassthroughProtocol, PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { acceptTask } from '../../tasks/accept.ts';
import type { TaskContext } from '../../tasks/context.ts';
import type { Submission } from '../../tasks/kind.ts';
import { recordSubmission } from '../../tasks/submit.ts';
import type { ResponseIds } from './ids.ts';
import { RESPONSE_KIND, type ResponseTaskNumbers } from './kind.ts';

export interface BackgroundDeps {
  tasks: TaskContext;
  passthrough: Passthrough;
  ids: ResponseIds;
}

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export async function createBackground(deps: BackgroundDeps, protocol: PassthroughProtocol, sent: PassthroughRequest, sink: Sink): Promise<PassthroughResult> {
  if (sent.body.stream === true)
    return {
      failure: passthroughFailures.invalid('stream', 'A background response is not streamed here: send stream false and poll GET /v1/responses/{response_id}.'),
      log: {},
    };
  const resolved = deps.passthrough.resolve(protocol, sent);
  if (resolved instanceof Failure) return { failure: resolved, log: {} };
  const { model, request } = resolved; // the request as it goes upstream (a substitute's output cap applied)
  const inspected = protocol.inspect(request, model);
  if (inspected instanceof Failure) return { failure: inspected, log: { model: model.id, ...resolved.adaptation.log } };
  const route = resolved.routes[0]!; // one submission only: a second route could run it twice
  const taskId = `vt_${randomBase62(24)}`;
  const log: LogFields = { model: model.id, provider: route.provider.id, stream: false, ...resolved.adaptation.log };
  const numbers: ResponseTaskNumbers = { input_tokens: inspected.inputTokens, max_output_tokens: inspected.maxOutputTokens };
  const accepted = await acceptTask(
    deps.tasks,
    {
      id: taskId,
      kind: RESPONSE_KIND,
      customerId: request.caller.customerId,
      keyId: request.caller.keyId,
      modelId: model.id,
      provider: route.provider,
      upstreamModel: route.upstreamModel,
      request: numbers,
      price: { ...resolved.price, currency: deps.tasks.catalogue.current().currency, version: model.priceVersion.version },
      priceVersionId: model.priceVersion.id,
      requestHash: request.requestId,
      cancellable: true,
    },
    {
      bound: { lines: protocol.boundLines(resolved.price, inspected) },
      purpose: { response_task_id: taskId, model: model.id, key_id: request.caller.keyId, request_id: request.requestId },
      priceVersionId: model.priceVersion.id,
      ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
      limits: request.caller.limited,
    },
  );
  if (!accepted.accepted) {
    if (accepted.reason === 'key_limit') return { failure: keyLimitFailure(accepted.refusal, 'openai'), log };
    if (accepted.reason === 'insufficient_funds')
      return { failure: passthroughFailures.insufficientBalance('its input plus the most output it may produce'), log };
    throw new Error(`a background response refused as ${accepted.reason}`); // it has no Idempotency-Key
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
  const submitted = await recordSubmission(deps.tasks, accepted.task, route.provider, await readSubmission(answer));
  if (submitted.outcome === 'refused')
    return { failure: protocol.failure(submitted.cause, route, model.id), log: { ...log, upstream_request_id: submitted.cause.upstreamRequestId ?? null } };
  if (submitted.outcome !== 'accepted' || answer instanceof UpstreamError) {
    // In review: the provider may run it, and the hold stays for an operator.
    const kind = !(answer instanceof UpstreamError)
      ? PassthroughError.UpstreamInvalidResponse
      : answer.kind === 'timeout'
        ? PassthroughError.UpstreamTimeout
        : PassthroughError.UpstreamUnreachable;
    return { failure: new Failure(kind, ''), log };
  }
  deps.ids.record({
    response_id: submitted.upstreamId,
    customer_id: request.caller.customerId,
    key_id: request.caller.keyId,
    provider_id: route.provider.id,
    model_id: model.id,
    upstream_model: route.upstreamModel,
    request_id: request.requestId,
  });
  const text = submitted.reply!;
  const out = route.upstreamModel === model.id ? text : (spliceFirstMember(text, 'model', route.upstreamModel, model.id) ?? text);
  sink.send(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }, out);
  return { log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
}

/** What the provider's answer to the submission says: its id (and the answer to relay), a refusal, or nothing certain. */
async function readSubmission(answer: Awaited<ReturnType<typeof callUpstream>>): Promise<Submission<string>> {
  if (answer instanceof UpstreamError) {
    // Only a status is a refusal; a timeout or a cut connection may have reached it: never release blindly.
    if (answer.kind !== 'status') return { outcome: 'unconfirmed', message: 'The provider did not confirm the background response.' };
    return { outcome: 'refused', error: { code: 'upstream_rejected', message: 'The provider rejected the background response.' }, cause: answer };
  }
  const text = await collect(answer.body, MAX_ANSWER_BYTES);
  let response: { id?: unknown; status?: unknown } | undefined;
  try {
    response = JSON.parse(text) as typeof response;
  } catch {
    response = undefined;
  }
  if (!response || typeof response.id !== 'string') return { outcome: 'unconfirmed', message: 'The provider answered the background response without an id.' };
  return { outcome: 'accepted', upstreamId: response.id, upstreamStatus: typeof response.status === 'string' ? response.status : null, reply: text };
}
