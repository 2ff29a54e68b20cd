// POST /v1/chat/completions on the shared passthrough flow.
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { openaiChat } from './protocol.ts';

export interface ChatService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
}

export function createChatService(deps: { passthrough: Passthrough }): ChatService {
  return {
    create: (request, sink) => deps.passthrough.run(openaiChat, request, sink),
  };
}
