// Span attributes of a request, once it is over: HTTP semantic conventions, the gateway's ids
// (request, customer, key), and, with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental,
// the GenAI ones (operation, the model asked for and the one billed, the provider, the tokens as
// billed). Never a prompt, an output, a key, a credential, a query string or an upstream host.
import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { ModelGroup, ProviderProtocol } from '../catalogue/types.ts';
import type { LogFields } from '../logs/request-logs.ts';
import type { Exchange } from '../http/exchange.ts';
import { formatMicros } from '../shared/money.ts';

/** `gen_ai.operation.name` by endpoint group: Messages, Chat Completions and Responses are chat; Gemini's generateContent and video tasks generate content. */
const OPERATIONS: Partial<Record<ModelGroup, string>> = {
  messages: 'chat',
  chat: 'chat',
  responses: 'chat',
  gemini: 'generate_content',
  video: 'generate_content',
};

/** The operations that are inferences, by operationId. */
const GROUP_OF_OPERATION: Record<string, ModelGroup> = {
  messages_create: 'messages',
  chat_completions_create: 'chat',
  responses_create: 'responses',
  gemini_generate_content: 'gemini',
  gemini_stream_generate_content: 'gemini',
  videos_create: 'video',
};

/**
 * `gen_ai.operation.name` of an inference call by the provider's protocol: the text protocols
 * chat, Gemini's generates content (a video provider's submission is spanned by video-adapters.ts).
 */
export const operationOfProtocol = (protocol: ProviderProtocol): string =>
  protocol === 'anthropic' || protocol === 'openai-chat' || protocol === 'openai-responses' ? 'chat' : 'generate_content';

/** The gateway's own attributes of a request: always there when tracing is on. */
export function gatewayAttributes(exchange: Exchange, fields: LogFields): Attributes {
  const who = exchange.caller ?? exchange.refusedCaller;
  const attributes: Attributes = { 'gateway.request_id': exchange.requestId };
  if (exchange.operationId) attributes['gateway.operation'] = exchange.operationId;
  if (exchange.clientRequestId) attributes['gateway.client_request_id'] = exchange.clientRequestId;
  if (who) {
    attributes['gateway.customer_id'] = who.customerId;
    attributes['gateway.key_id'] = who.keyId;
  }
  if (fields.cost !== undefined && fields.cost !== null) attributes['gateway.cost'] = formatMicros(fields.cost);
  return attributes;
}

/**
 * The GenAI attributes of an inference request: the model as the client named it, the id it was
 * served and billed as (what the answer's `model` says), the catalogue's provider id, and the
 * token counts billed (input includes the cache reads and writes, as the convention asks).
 */
export function genAiAttributes(exchange: Exchange, fields: LogFields): Attributes {
  const group = exchange.operationId ? GROUP_OF_OPERATION[exchange.operationId] : undefined;
  if (!group) return {};
  const attributes: Attributes = { 'gen_ai.operation.name': OPERATIONS[group]! };
  const asked = fields.requested_model ?? exchange.model;
  if (asked) attributes['gen_ai.request.model'] = asked;
  if (fields.model) attributes['gen_ai.response.model'] = fields.model;
  if (fields.provider) attributes['gen_ai.provider.name'] = fields.provider;
  if (fields.stream !== undefined) attributes['gen_ai.request.stream'] = fields.stream;
  const count = (value: number | null | undefined) => (typeof value === 'number' ? value : 0);
  if (typeof fields.input_tokens === 'number') {
    attributes['gen_ai.usage.input_tokens'] = fields.input_tokens + count(fields.cache_read_tokens) + count(fields.cache_write_tokens);
    if (typeof fields.cache_read_tokens === 'number') attributes['gen_ai.usage.cache_read.input_tokens'] = fields.cache_read_tokens;
    if (typeof fields.cache_write_tokens === 'number') attributes['gen_ai.usage.cache_creation.input_tokens'] = fields.cache_write_tokens;
  }
  if (typeof fields.output_tokens === 'number') attributes['gen_ai.usage.output_tokens'] = fields.output_tokens;
  return attributes;
}

/** Marks a span failed, with the error's type (`error.type`: a status code, or how the call failed). */
export function failedSpan(span: Span, errorType: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}
