// The contract between the video domain and the video adapters: the request the domain validated
// and what an upstream says about a task. Providers never import src/domain; the domain imports
// these types.
import type { ResolvedProvider } from './registry.ts';
import type { UpstreamError } from './types.ts';

export type VideoContentType = 'text' | 'image_url' | 'video_url' | 'audio_url';

export interface VideoContentItem {
  type: VideoContentType;
  text?: string;
  image_url?: { url: string };
  video_url?: { url: string };
  audio_url?: { url: string };
  role?: string;
}

/** The request as validated against the catalogue: what adapters translate for their upstream. */
export interface NormalisedVideoRequest {
  /** The public model id. */
  model: string;
  /** Exactly one text item, first (the prompt and any text items, joined), then the other inputs in order. */
  content: VideoContentItem[];
  seconds: number;
  /** The priced resolution tier. */
  resolution: string;
  ratio: string | null;
  /** Width x height ("1280x720") when the caller gave one or the model's sizes name it; null otherwise (older rows lack it). */
  size?: string | null;
  reference_images: Array<{ url: string }>;
  generate_audio: boolean | null;
  watermark: boolean | null;
  /**
   * Seconds of input video the hold counts: each video_url input at its declared `seconds`, else
   * the model's `reference_video_seconds`. The provider's metered input seconds are what is charged.
   * Absent (older rows, no video input): none.
   */
  reference_video_seconds?: number;
}

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
  /** The task object itself is the delivery proof (OpenAI videos: `completed` with `seconds` and `size`; it has no URL). */
  deliveryConfirmed?: boolean;
  /**
   * The provider reports no usage and bills what was asked (Vertex Veo): a confirmed delivery is
   * settled at the requested seconds and resolution (and sound), not at delivered figures.
   */
  billedAsRequested?: boolean;
  /** When the provider stops serving the files (unix seconds), when it says or documents it. */
  expiresAt?: number | null;
  /**
   * The tier is the provider's own metering (DashScope's `usage.SR`), not a description of the
   * file: one other than the tier priced at acceptance is contradictory usage, and the task goes
   * to review instead of being charged at either tier.
   */
  meteredTier?: boolean;
  /** The provider's usage contradicts itself (why, for the operator): the task goes to review. */
  contradiction?: string;
  error: { code: string; message: string } | undefined;
  /** The upstream's result object, as received. */
  raw: Record<string, unknown>;
}

export type VideoVariant = 'video' | 'thumbnail' | 'spritesheet';

/** Where a finished task's bytes can be fetched right now. */
export interface VideoAssetLocation {
  url: string;
  /** Send the provider credential (its own API endpoint); never to a supplier CDN URL. */
  withCredential: boolean;
  /**
   * A bearer token the adapter obtained for this URL, sent instead of the provider credential
   * (Vertex Veo: the service account's OAuth access token for Cloud Storage). Never logged.
   */
  bearer?: string;
}

export interface VideoAdapter {
  submit(provider: ResolvedProvider, upstreamModel: string, request: NormalisedVideoRequest): Promise<{ upstreamId: string } | UpstreamError>;
  poll(provider: ResolvedProvider, upstreamId: string): Promise<VideoPoll | UpstreamError>;
  /** 'cancelled' once the upstream confirms; 'refused' when it will not (the task goes on). */
  cancel(provider: ResolvedProvider, upstreamId: string): Promise<'cancelled' | 'refused' | UpstreamError>;
  /** The downloadable variants of a finished task. */
  readonly variants: readonly VideoVariant[];
  /**
   * Where the bytes of a finished task are now, resolved afresh on each call (supplier URLs
   * expire or are signed per query); 'gone' when the upstream no longer has them.
   */
  locate(provider: ResolvedProvider, upstreamId: string, variant: VideoVariant): Promise<VideoAssetLocation | 'gone' | UpstreamError>;
}
