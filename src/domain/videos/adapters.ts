import type { ProviderProtocol } from '../../catalogue/types.ts';
import { arkAdapter } from '../../providers/ark/adapter.ts';
import { minimaxAdapter } from '../../providers/minimax/adapter.ts';
import { openaiVideosAdapter } from '../../providers/openai-videos/adapter.ts';
import type { VideoAdapter } from '../../providers/video.ts';

/** Video adapters by upstream protocol. */
export const videoAdapters: Partial<Record<ProviderProtocol, VideoAdapter>> = {
  'ark-video': arkAdapter,
  'openai-videos': openaiVideosAdapter,
  'minimax-video-v2': minimaxAdapter,
};
