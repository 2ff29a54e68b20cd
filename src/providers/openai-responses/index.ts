// OpenAI Responses: relayed as is (src/domain/passthrough and src/domain/responses); headers.ts
// holds its wire knowledge.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const openaiResponsesProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
