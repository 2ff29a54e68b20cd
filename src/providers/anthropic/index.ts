// Anthropic Messages: relayed as is (src/domain/passthrough); headers.ts and errors.ts hold its wire knowledge.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const anthropicProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
