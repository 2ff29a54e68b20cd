// Ark (Seedance) video tasks: the adapter (adapter.ts) and its defaults.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { arkAdapter } from './adapter.ts';

export const arkProtocol: ProtocolModule = { timeouts: TASK_TIMEOUTS, video: arkAdapter };
