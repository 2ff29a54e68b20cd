// POST /v1/responses on the shared passthrough flow.
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { responsesProtocol } from './protocol.ts';

export interface ResponsesService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
}

export function createResponsesService(deps: { passthrough: Passthrough }): ResponsesService {
  return {
    create: (request, sink) => deps.passthrough.run(responsesProtocol(), request, sink),
  };
}
