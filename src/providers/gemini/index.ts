// The Gemini API on Google AI Studio: relayed as is (src/domain/passthrough and src/domain/gemini);
// wire.ts builds its calls and errors.ts reads its errors, shared with Vertex AI's Gemini endpoint.
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const geminiProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
