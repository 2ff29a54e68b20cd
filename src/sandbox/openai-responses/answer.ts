// What the simulated Responses model says, in OpenAI's shapes: output items (reasoning, a function
// call or a message), the stream events that build them, the usage object and the Response.
import { randomBytes } from 'node:crypto';
import type { ResponsesSimBehaviour } from './directives.ts';

const WORDS = ['Hello', ' from', ' the', ' sandbox', ' model.', ' This', ' answer', ' is', ' simulated', ' and', ' deterministic.', ' Enjoy!'];
const TOOL_ARGUMENTS = ['{"location":', ' "Paris",', ' "unit":', ' "celsius"}'];
const SUMMARY = ['Thinking', ' it', ' through.'];

export const simId = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

export type Event = Record<string, unknown> & { type: string };

export interface Answer {
  /** Items as they stand once complete. */
  items: Array<Record<string, unknown>>;
  /** The events that build the items, without sequence numbers. */
  events: Event[];
  /** Output tokens: one per piece, plus reasoning tokens. */
  outputTokens: number;
  /** Stopped at max_output_tokens. */
  incomplete: boolean;
}

/** The answer to a request: reasoning first when asked, then a function call or a message of `deltas` pieces. */
export function answerOf(behaviour: ResponsesSimBehaviour, body: Record<string, unknown>): Answer {
  const items: Array<Record<string, unknown>> = [];
  const events: Event[] = [];
  const limit = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : Infinity;
  const reasoning = behaviour.reasoningTokens ?? (behaviour.thinking ? 30 : 0);
  if (reasoning > 0) {
    const id = simId('rs');
    const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    const item = { id, type: 'reasoning', summary: [] as unknown[], ...(encrypted ? { encrypted_content: `gAAAA${randomBytes(24).toString('base64')}` } : {}) };
    const at = items.length;
    events.push({ type: 'response.output_item.added', output_index: at, item: { ...item } });
    events.push({ type: 'response.reasoning_summary_part.added', item_id: id, output_index: at, summary_index: 0, part: { type: 'summary_text', text: '' } });
    for (const delta of SUMMARY) events.push({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index: at, summary_index: 0, delta });
    const part = { type: 'summary_text', text: SUMMARY.join('') };
    events.push({ type: 'response.reasoning_summary_text.done', item_id: id, output_index: at, summary_index: 0, text: part.text });
    events.push({ type: 'response.reasoning_summary_part.done', item_id: id, output_index: at, summary_index: 0, part });
    item.summary = [part];
    items.push(item);
    events.push({ type: 'response.output_item.done', output_index: at, item });
  }
  const call = behaviour.call;
  const argumentPieces = call ? [call.arguments.slice(0, call.arguments.length >> 1), call.arguments.slice(call.arguments.length >> 1)] : TOOL_ARGUMENTS;
  const pieces = behaviour.tool || call ? argumentPieces : Array.from({ length: behaviour.deltas ?? 8 }, (_, i) => WORDS[i % WORDS.length]!);
  const incomplete = behaviour.incomplete === true || pieces.length + reasoning > limit;
  const sent = incomplete ? pieces.slice(0, Math.max(0, Math.min(pieces.length - 1, limit - reasoning))) : pieces;
  const at = items.length;
  if (behaviour.tool || call) {
    const id = simId('fc');
    const base = { id, type: 'function_call', call_id: simId('call'), name: call?.name ?? 'get_weather' };
    events.push({ type: 'response.output_item.added', output_index: at, item: { ...base, arguments: '', status: 'in_progress' } });
    for (const delta of sent) events.push({ type: 'response.function_call_arguments.delta', item_id: id, output_index: at, delta });
    events.push({ type: 'response.function_call_arguments.done', item_id: id, output_index: at, name: base.name, arguments: sent.join('') });
    const item = { ...base, arguments: sent.join(''), status: incomplete ? 'incomplete' : 'completed' };
    items.push(item);
    events.push({ type: 'response.output_item.done', output_index: at, item });
  } else {
    const id = simId('msg');
    const base = { id, type: 'message', role: 'assistant' };
    events.push({ type: 'response.output_item.added', output_index: at, item: { ...base, status: 'in_progress', content: [] } });
    const empty = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    events.push({ type: 'response.content_part.added', item_id: id, output_index: at, content_index: 0, part: empty });
    for (const delta of sent) events.push({ type: 'response.output_text.delta', item_id: id, output_index: at, content_index: 0, delta, logprobs: [] });
    const part = { ...empty, text: sent.join('') };
    events.push({ type: 'response.output_text.done', item_id: id, output_index: at, content_index: 0, text: part.text, logprobs: [] });
    events.push({ type: 'response.content_part.done', item_id: id, output_index: at, content_index: 0, part });
    const item = { ...base, status: incomplete ? 'incomplete' : 'completed', content: [part] };
    items.push(item);
    events.push({ type: 'response.output_item.done', output_index: at, item });
  }
  return { items, events, outputTokens: sent.length + reasoning, incomplete };
}

export function usageOf(inputTokens: number, answer: Answer, behaviour: ResponsesSimBehaviour) {
  const cached = Math.min(behaviour.cachedTokens ?? behaviour.cacheRead ?? 0, inputTokens);
  const writes = Math.min(behaviour.cacheWrite ?? 0, inputTokens - cached);
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: writes },
    output_tokens: answer.outputTokens,
    output_tokens_details: { reasoning_tokens: behaviour.reasoningTokens ?? (behaviour.thinking ? 30 : 0) },
    total_tokens: inputTokens + answer.outputTokens,
  };
}

/** The tier an answer reports: what was asked (`fast` reported as `priority`, `auto` as `default`) or the directive's. */
export function tierOf(body: Record<string, unknown>, behaviour: ResponsesSimBehaviour): string {
  if (behaviour.tier) return behaviour.tier;
  const asked = body.service_tier;
  if (asked === 'fast') return 'priority';
  return asked === 'flex' || asked === 'priority' || asked === 'scale' || asked === 'ultrafast' ? asked : 'default';
}

/** The Response object, as OpenAI shapes it; `usage` only once known (the published schema does not allow null). */
export function responseObject(
  fields: { id: string; createdAt: number; status: string; body: Record<string, unknown>; tier: string },
  extra: Record<string, unknown> = {},
) {
  const { body } = fields;
  return {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: fields.status,
    background: body.background === true,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: fields.tier,
    store: body.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    metadata: body.metadata ?? {},
    ...extra,
  };
}

/** OpenAI's error body, as the chat simulator answers it (one API, one error shape). */
export { errorBody } from '../openai-chat/responses.ts';
