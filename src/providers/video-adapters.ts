// The video adapters by upstream protocol: the one lookup the video domain uses.
import type { ProviderProtocol } from '../catalogue/types.ts';
import { arkAdapter } from './ark/adapter.ts';
import { minimaxAdapter } from './minimax/adapter.ts';
import { openaiVideosAdapter } from './openai-videos/adapter.ts';
import type { VideoAdapter } from './video.ts';

export const videoAdapters: Partial<Record<ProviderProtocol, VideoAdapter>> = {
  'ark-video': arkAdapter,
  'openai-videos': openaiVideosAdapter,
  'minimax-video-v2': minimaxAdapter,
};
