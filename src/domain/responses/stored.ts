// Calls on a response the gateway relayed: GET, DELETE, POST .../cancel and GET .../input_items,
// proxied to the provider route that served it, for its owner only (anyone else, or an id the
// gateway never relayed: 404, as OpenAI answers for an id it does not know). Free of charge. The
// answer's bytes pass as received but for `model`, set to the public id; a deleted response is
// forgotten.
import type { CatalogueStore } from '../../catalogue/store.ts';
import type { Caller } from '../../customers/service.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import { callProviderJson, openaiResponsesCall, UpstreamError } from '../../providers/index.ts';
import { spliceFirstMember } from '../../shared/json-splice.ts';
import { Failure } from '../failure.ts';
import { PassthroughError, passthroughFailures } from '../passthrough/errors.ts';
import type { Sink } from '../sink.ts';
import type { ResponseIds, ResponseIdRow } from './ids.ts';

export type StoredAction = 'get' | 'delete' | 'cancel' | 'input_items';

export interface StoredResult {
  failure?: Failure;
  log: LogFields;
  /** The upstream answer as sent to the client (status and the JSON text). */
  answered?: { status: number; text: string };
}

const CALLS: Record<StoredAction, { method: 'GET' | 'DELETE' | 'POST'; under: string }> = {
  get: { method: 'GET', under: '' },
  delete: { method: 'DELETE', under: '' },
  cancel: { method: 'POST', under: '/cancel' },
  input_items: { method: 'GET', under: '/input_items' },
};
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface StoredDeps {
  catalogue: CatalogueStore;
  ids: ResponseIds;
}

/** Query parameters the provider documents for each call, passed on as given. */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function storedCall(
  deps: StoredDeps,
  call: {
    caller: Caller;
    action: StoredAction;
    responseId: string;
    query: Record<string, unknown>;
    sink: Sink;
    row?: ResponseIdRow;
    /** Runs on a successful answer before the client gets it (a cancel ends the hold first). */
    answered?(text: string): Promise<void>;
  },
): Promise<StoredResult> {
  const row = call.row ?? (await deps.ids.owned(call.caller.customerId, call.responseId));
  if (!row) return { failure: passthroughFailures.responseNotFound(call.responseId, 'response_id'), log: {} };
  const log: LogFields = { model: row.model_id, provider: row.provider_id };
  const provider = deps.catalogue.current().providers.get(row.provider_id);
  if (!provider?.baseUrl) return { failure: passthroughFailures.noProvider(row.model_id), log };
  const { method, under } = CALLS[call.action];
  const answer = await callProviderJson(
    provider,
    openaiResponsesCall(provider, method, `/${encodeURIComponent(row.response_id)}${under}${queryString(call.query)}`),
    {
      wait: 'whole-answer',
      limit: MAX_ANSWER_BYTES,
      client: call.sink.signal,
    },
  );
  if (answer instanceof UpstreamError) {
    const failure = passthroughFailures.fromUpstream(answer, { upstream: row.upstream_model, public: row.model_id });
    return {
      failure,
      log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null, upstream_error: answer.status ? `status ${answer.status}` : answer.kind },
    };
  }
  if (!answer.json || typeof answer.json !== 'object') return { failure: new Failure(PassthroughError.UpstreamInvalidResponse, ''), log };
  const raw = answer.text;
  const text = row.upstream_model === row.model_id ? raw : (spliceFirstMember(raw, 'model', row.upstream_model, row.model_id) ?? raw);
  if (call.action === 'delete') await deps.ids.forget(row.response_id);
  if (answer.status < 300) await call.answered?.(text);
  call.sink.send(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }, text);
  return { log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null }, answered: { status: answer.status, text } };
}
