// The providers' face: the one call (call.ts, with its hooks), each provider's wire (the request it
// builds, its error bodies), the registry that resolves the catalogue's providers, and the video
// adapters' contract. Code outside src/providers imports from here only (ESLint's `faces`);
// scripts/faces.mjs adds a name an outside import needs.
export { anthropicRequest } from './anthropic/wire.ts';
export { fetchAsset } from './asset.ts';
export { callProvider, callProviderJson, type JsonAnswer, type ProviderRequest } from './call.ts';
export { EgressRefusedError, internalAddressClass } from './egress-guard.ts';
export { googleRetryDelay } from './gemini/errors.ts';
export { type GeminiMethod, geminiRequest } from './gemini/wire.ts';
export { openaiErrorParam } from './openai-chat/errors.ts';
export { openaiChatRequest } from './openai-chat/wire.ts';
export { openaiResponsesCall, openaiResponsesPost } from './openai-responses/wire.ts';
export { isConcurrencyRefusal } from './refusals.ts';
export { resolveProviders } from './registry.ts';
export { type CallLabels, type TaskSpans, taskSpans } from './task-spans.ts';
export { sanitizeForLog, sanitizeUpstreamMessage, upstreamErrorParts } from './sanitize.ts';
export { type CallHooks, UpstreamError, type UpstreamResponse } from './types.ts';
export { videoAdapters } from './video-adapters.ts';
export { type NormalisedVideoRequest, type VideoContentItem, type VideoPoll, type VideoVariant } from './video.ts';
