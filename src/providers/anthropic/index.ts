// Anthropic Messages: relayed as is (src/domain/passthrough); wire.ts builds its calls.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const anthropicProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
