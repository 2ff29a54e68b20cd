// MiniMax video v2 (H3): the adapter (adapter.ts) and its defaults.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { minimaxAdapter } from './adapter.ts';

export const minimaxProtocol: ProtocolModule = { timeouts: TASK_TIMEOUTS, video: minimaxAdapter };
