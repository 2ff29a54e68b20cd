import type { NormalisedVideoRequest } from '../domain/videos/model.ts';
import type { ResolvedProvider } from './registry.ts';
import type { UpstreamError } from './types.ts';

/** What an upstream says about a task, in the platform's terms. */
export interface VideoPoll {
  /** `unknown` is never treated as failure: the task goes to review. */
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'unknown';
  upstreamStatus: string;
  progress: number | null;
  /** The delivered duration as the upstream reports it (number or decimal string). */
  deliveredSeconds: number | string | undefined;
  deliveredResolution: string | undefined;
  assetUrl: string | undefined;
  /** The upstream confirmed the delivered file some other way (Sora's content endpoint answered). */
  deliveryConfirmed?: boolean;
  error: { code: string; message: string } | undefined;
  /** The upstream's result object, as received. */
  raw: Record<string, unknown>;
}

export interface VideoAdapter {
  submit(provider: ResolvedProvider, upstreamModel: string, request: NormalisedVideoRequest): Promise<{ upstreamId: string } | UpstreamError>;
  poll(provider: ResolvedProvider, upstreamId: string): Promise<VideoPoll | UpstreamError>;
  /** 'cancelled' once the upstream confirms; 'refused' when it will not (the task goes on). */
  cancel(provider: ResolvedProvider, upstreamId: string): Promise<'cancelled' | 'refused' | UpstreamError>;
}
