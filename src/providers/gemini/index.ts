// The Gemini API on Google AI Studio: relayed as is (src/domain/passthrough and src/domain/gemini);
// headers.ts holds its wire knowledge, shared with Vertex AI's Gemini endpoint.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const geminiProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
