// Veo on Vertex AI: the adapter (adapter.ts), its service-account auth (auth.ts), the operation it
// reads (operation.ts) and its defaults.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { vertexVeoAdapter } from './adapter.ts';

export const vertexVeoProtocol: ProtocolModule = { timeouts: TASK_TIMEOUTS, video: vertexVeoAdapter };
