// The Gemini API on Vertex AI: the same wire as AI Studio's (src/providers/gemini/wire.ts) at a
// location's publisher models, authenticated with the service account the Veo provider uses
// (src/providers/vertex-veo/auth.ts: the key in credential_env, tokens minted and cached by
// google-auth-library).
import type { ProtocolModule } from '../protocol.ts';
import { TEXT_TIMEOUTS } from '../timeouts.ts';

export const vertexGeminiProtocol: ProtocolModule = { timeouts: TEXT_TIMEOUTS };
