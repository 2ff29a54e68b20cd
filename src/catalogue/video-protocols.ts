// What each video protocol can express at all, from its contract in openapi/upstream. A model's
// `video` entry may offer only what its protocol can carry (load.ts checks it); the video domain
// validates requests by both, so an option the provider has no parameter for is refused, never
// dropped. The adapters (src/providers/*) map exactly these.
import type { ProviderProtocol, VideoSpec } from './types.ts';
import { AUDIO_TIER_SUFFIX, isAudioTier } from './video-tiers.ts';

export type VideoProtocol = Extract<ProviderProtocol, 'openai-videos' | 'ark-video' | 'minimax-video-v2' | 'dashscope-video' | 'kling-video' | 'vertex-veo'>;

export interface VideoProtocolTraits {
  /** The upstream takes a pixel size only (no tier, no ratio): its models must list `sizes`. */
  sizeOnly: boolean;
  /** A sound switch (`generate_audio`). */
  audio: boolean;
  /**
   * The adapter always sends the sound switch (off unless asked), so what the provider makes, and
   * so its price, follows `generate_audio`: `<tier>+audio` prices may be set.
   */
  audioTiers?: boolean;
  /** A watermark switch. */
  watermark: boolean;
  referenceImages: boolean;
  contentTypes: ReadonlyArray<VideoSpec['content_types'][number]>;
  /** Roles an image input may take; an image without a role is the first frame everywhere. */
  imageRoles: readonly string[];
  /** At most this many image inputs. */
  maxImages?: number;
  /** Values the upstream documents: a catalogue offering others would be refused upstream. */
  resolutions?: readonly string[];
  ratios?: readonly string[];
  sizes?: readonly string[];
  seconds?: readonly number[];
}

const FRAME_AND_REFERENCE = ['first_frame', 'last_frame', 'reference_image'] as const;
const RATIOS = ['adaptive', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;

export const VIDEO_PROTOCOL_TRAITS: Record<VideoProtocol, VideoProtocolTraits> = {
  // POST /videos: prompt, seconds "4"|"8"|"12", size, input_reference {image_url} (one image, the first frame).
  'openai-videos': {
    sizeOnly: true,
    audio: false,
    watermark: false,
    referenceImages: false,
    contentTypes: ['text', 'image_url'],
    imageRoles: ['first_frame'],
    maxImages: 1,
    sizes: ['720x1280', '1280x720', '1024x1792', '1792x1024'],
    seconds: [4, 8, 12],
  },
  // POST /contents/generations/tasks: content items, resolution, ratio, duration, watermark, generate_audio.
  'ark-video': {
    sizeOnly: false,
    audio: true,
    watermark: true,
    referenceImages: true,
    contentTypes: ['text', 'image_url', 'video_url', 'audio_url'],
    imageRoles: FRAME_AND_REFERENCE,
    resolutions: ['480p', '720p', '1080p'],
    ratios: RATIOS,
  },
  // POST /v2/video_generation: content items, resolution, ratio, duration 4-15, aigc_watermark; no sound switch.
  'minimax-video-v2': {
    sizeOnly: false,
    audio: false,
    watermark: true,
    referenceImages: true,
    contentTypes: ['text', 'image_url', 'video_url', 'audio_url'],
    imageRoles: FRAME_AND_REFERENCE,
    resolutions: ['480P', '768P', '1080P', '2K'],
    ratios: RATIOS,
    seconds: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  },
  // POST /api/v1/services/aigc/video-generation/video-synthesis (Wan 2.7 and 3.0): input.prompt,
  // input.media [{type, url}], parameters.resolution 480P|720P|1080P, ratio, duration, watermark.
  // Wan 2.7 takes 2-15 s at 720P or 1080P, Wan 3.0 2-30 s from 480P; no sound switch (sound is on).
  'dashscope-video': {
    sizeOnly: false,
    audio: false,
    watermark: true,
    referenceImages: true,
    contentTypes: ['text', 'image_url', 'video_url', 'audio_url'],
    imageRoles: FRAME_AND_REFERENCE,
    resolutions: ['480p', '720p', '1080p'],
    ratios: ['16:9', '9:16', '1:1', '4:3', '3:4'],
    seconds: Array.from({ length: 29 }, (_, i) => i + 2),
  },
  // POST /v1/videos/text2video (prompt, aspect_ratio) or /v1/videos/image2video (image = first
  // frame, image_tail = last frame; the image decides the ratio), mode std | pro as the priced
  // tier, duration "3".."15", sound on/off. No watermark switch offered: the watermarked copy
  // is a second URL the gateway would have to choose between.
  'kling-video': {
    sizeOnly: false,
    audio: true,
    watermark: false,
    referenceImages: false,
    contentTypes: ['text', 'image_url'],
    imageRoles: ['first_frame', 'last_frame'],
    maxImages: 2,
    resolutions: ['std', 'pro'],
    ratios: ['16:9', '9:16', '1:1'],
    seconds: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  },
  // POST {model}:predictLongRunning: a prompt, durationSeconds 4|6|8, resolution, aspectRatio,
  // generateAudio (always sent). Images reach Vertex only inline or from gs://, and the gateway
  // moves no assets: text only.
  'vertex-veo': {
    sizeOnly: false,
    audio: true,
    audioTiers: true,
    watermark: false,
    referenceImages: false,
    contentTypes: ['text'],
    imageRoles: [],
    resolutions: ['720p', '1080p'],
    ratios: ['16:9', '9:16'],
    seconds: [4, 6, 8],
  },
};

export const isVideoProtocol = (protocol: ProviderProtocol): protocol is VideoProtocol => protocol in VIDEO_PROTOCOL_TRAITS;

/** "1280x720" -> "720p": a size's tier is named by its shorter side (how OpenAI videos' answers are billed). */
export function tierOfSize(size: unknown): string | undefined {
  const match = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  return match ? `${Math.min(Number(match[1]), Number(match[2]))}p` : undefined;
}

/** What a model's `video` entry offers that its protocol cannot carry, as sentences. */
export function videoSpecProblems(protocol: VideoProtocol, video: VideoSpec, tiers: readonly string[]): string[] {
  const traits = VIDEO_PROTOCOL_TRAITS[protocol];
  const problems: string[] = [];
  const outside = <T>(values: readonly T[], allowed: readonly T[] | undefined) => (allowed ? values.filter((v) => !allowed.includes(v)) : []);
  const say = (field: string, values: unknown[], allowed: readonly unknown[] | undefined) =>
    values.length && problems.push(`${field}: ${protocol} does not take ${values.join(', ')} (it takes ${allowed!.join(', ')})`);
  say('video.content_types', outside(video.content_types, traits.contentTypes), traits.contentTypes);
  say('video.seconds', outside(video.seconds, traits.seconds), traits.seconds);
  const resolutions = tiers.filter((tier) => !isAudioTier(tier));
  say('price.per_second', outside(resolutions, traits.resolutions), traits.resolutions);
  for (const tier of tiers.filter(isAudioTier)) {
    const base = tier.slice(0, -AUDIO_TIER_SUFFIX.length);
    if (!traits.audioTiers) problems.push(`price.per_second.${tier}: ${protocol} does not always send the sound switch, so sound cannot be priced apart`);
    else if (!video.audio) problems.push(`price.per_second.${tier}: a sound price needs video.audio: true`);
    if (!resolutions.includes(base)) problems.push(`price.per_second.${tier}: ${base} itself has no price`);
  }
  say('video.ratios', outside(video.ratios ?? [], traits.ratios), traits.ratios);
  say('video.sizes', outside(Object.keys(video.sizes ?? {}), traits.sizes), traits.sizes);
  if (video.audio && !traits.audio) problems.push(`video.audio: ${protocol} has no sound switch (generate_audio)`);
  if (video.watermark && !traits.watermark) problems.push(`video.watermark: ${protocol} has no watermark switch`);
  if (video.reference_images && !traits.referenceImages) problems.push(`video.reference_images: ${protocol} takes no reference images`);
  if (traits.sizeOnly) {
    if (!video.sizes) problems.push(`video.sizes: ${protocol} takes a pixel size only; list the sizes it may be asked for`);
    if (video.ratios) problems.push(`video.ratios: ${protocol} takes no ratio; the ratios are those of video.sizes`);
    for (const [size, entry] of Object.entries(video.sizes ?? {})) {
      if (tierOfSize(size) !== entry.resolution)
        problems.push(`video.sizes.${size}: ${protocol} answers are billed by the shorter side, so its resolution must be ${tierOfSize(size)}`);
    }
  }
  for (const [size, entry] of Object.entries(video.sizes ?? {})) {
    if (!resolutions.includes(entry.resolution)) problems.push(`video.sizes.${size}: resolution ${entry.resolution} has no price in price.per_second`);
    if (!traits.sizeOnly && traits.ratios && !traits.ratios.includes(entry.ratio))
      problems.push(`video.sizes.${size}: ${protocol} does not take the ratio ${entry.ratio}`);
    else if (!traits.sizeOnly && video.ratios && !video.ratios.includes(entry.ratio))
      problems.push(`video.sizes.${size}: ratio ${entry.ratio} is not among video.ratios`);
  }
  return problems;
}
