// The video adapters by upstream protocol: the one lookup the video domain uses (from protocols.ts).
import type { ProviderProtocol } from '../catalogue/types.ts';
import { PROTOCOLS } from './protocols.ts';
import type { VideoAdapter } from './video.ts';

export const videoAdapters: Partial<Record<ProviderProtocol, VideoAdapter>> = Object.fromEntries(
  Object.entries(PROTOCOLS).flatMap(([protocol, module]) => (module.video ? [[protocol, module.video]] : [])),
);
