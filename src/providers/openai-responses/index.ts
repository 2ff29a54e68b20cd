// OpenAI Responses: relayed as is (src/domain/passthrough and src/domain/responses); wire.ts
// builds its calls (URLs, headers, the request id header); errors are OpenAI's (../openai-chat/errors.ts).
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const openaiResponsesProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
