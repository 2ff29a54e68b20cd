// OpenAI Chat Completions: relayed as is (src/domain/passthrough); wire.ts builds its calls, errors.ts reads its errors.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const openaiChatProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
