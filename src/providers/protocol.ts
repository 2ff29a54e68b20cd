// What a provider folder (src/providers/<protocol>/index.ts) declares about its protocol: its
// default timeouts, for a task protocol its video adapter, and what a credential of its must look
// like when it has a shape. protocols.ts lists them.
import type { ProviderTimeouts } from '../catalogue/types.ts';
import type { VideoAdapter } from './video.ts';

export interface ProtocolModule {
  timeouts: Required<ProviderTimeouts>;
  /** Present for task (video) protocols: their calls go through got (task-client.ts). */
  video?: VideoAdapter;
  /**
   * What is wrong with a credential value, in words that never quote it (`must be
   * ACCESS_KEY:SECRET_KEY ...`); undefined when it will do. A provider whose credential has a
   * problem stays disabled and the registry logs why. Absent: any non-empty value will do.
   */
  credentialProblem?(value: string): string | undefined;
}
