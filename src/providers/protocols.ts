// Every upstream protocol the catalogue may name, by its folder's module. The record's type makes
// a protocol added to the catalogue's list (catalogue/types.ts) fail to compile until it is here.
import type { ProviderProtocol } from '../catalogue/types.ts';
import { anthropicProtocol } from './anthropic/index.ts';
import { arkProtocol } from './ark/index.ts';
import { dashscopeProtocol } from './dashscope/index.ts';
import { geminiProtocol } from './gemini/index.ts';
import { klingProtocol } from './kling/index.ts';
import { minimaxProtocol } from './minimax/index.ts';
import { openaiChatProtocol } from './openai-chat/index.ts';
import { openaiResponsesProtocol } from './openai-responses/index.ts';
import { openaiVideosProtocol } from './openai-videos/index.ts';
import type { ProtocolModule } from './protocol.ts';
import { vertexGeminiProtocol } from './vertex-gemini/index.ts';
import { vertexVeoProtocol } from './vertex-veo/index.ts';

export const PROTOCOLS: Record<ProviderProtocol, ProtocolModule> = {
  anthropic: anthropicProtocol,
  'openai-chat': openaiChatProtocol,
  'openai-responses': openaiResponsesProtocol,
  gemini: geminiProtocol,
  'vertex-gemini': vertexGeminiProtocol,
  'ark-video': arkProtocol,
  'openai-videos': openaiVideosProtocol,
  'minimax-video-v2': minimaxProtocol,
  'dashscope-video': dashscopeProtocol,
  'kling-video': klingProtocol,
  'vertex-veo': vertexVeoProtocol,
};
