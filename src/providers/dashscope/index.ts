// Alibaba Cloud Model Studio (DashScope) Wan video tasks: the adapter (adapter.ts) and its defaults.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { dashscopeAdapter } from './adapter.ts';

export const dashscopeProtocol: ProtocolModule = { timeouts: TASK_TIMEOUTS, video: dashscopeAdapter };
