// OpenAI-videos-compatible providers (OpenAI's own Sora API is retired): the adapter (adapter.ts) and its defaults.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { openaiVideosAdapter } from './adapter.ts';

export const openaiVideosProtocol: ProtocolModule = { timeouts: TASK_TIMEOUTS, video: openaiVideosAdapter };
