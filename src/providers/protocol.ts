// What a provider folder (src/providers/<protocol>/index.ts) declares about its protocol: its
// default timeouts and, for a task protocol, its video adapter. protocols.ts lists them.
import type { ProviderTimeouts } from '../catalogue/types.ts';
import type { VideoAdapter } from './video.ts';

export interface ProtocolModule {
  timeouts: Required<ProviderTimeouts>;
  /** Present for task (video) protocols: their calls go through got (task-client.ts). */
  video?: VideoAdapter;
}
