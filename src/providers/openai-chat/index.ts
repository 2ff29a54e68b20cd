// OpenAI Chat Completions: relayed as is (src/domain/passthrough); headers.ts holds its wire knowledge.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const openaiChatProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
