// What the gateway sends Kling for a task, and how it finds the task again. The kind decides the
// endpoint: text2video when the request has only text, image2video when it has a first and/or
// last frame (`image`, `image_tail`). The priced tier is Kling's `mode` (std | pro): Kling's
// query answers neither the kind nor the mode, so both travel in the upstream id the gateway
// keeps, `<kind>:<mode>:<Kling task id>` (Kling's ids are digits or base64url, never a colon).
import type { NormalisedVideoRequest } from '../video.ts';

export type KlingKind = 'text2video' | 'image2video';
export type KlingMode = 'std' | 'pro';

export interface KlingTaskRef {
  kind: KlingKind;
  mode: KlingMode;
  taskId: string;
}

const KINDS: readonly string[] = ['text2video', 'image2video'];
const MODES: readonly string[] = ['std', 'pro'];

export const upstreamIdOf = (ref: KlingTaskRef): string => `${ref.kind}:${ref.mode}:${ref.taskId}`;

export function taskRefOf(upstreamId: string): KlingTaskRef | undefined {
  const match = /^([a-z0-9]+):([a-z]+):(.+)$/.exec(upstreamId);
  if (!match || !KINDS.includes(match[1]!) || !MODES.includes(match[2]!)) return undefined;
  return { kind: match[1] as KlingKind, mode: match[2] as KlingMode, taskId: match[3]! };
}

export const taskPath = (ref: KlingTaskRef): string => `/v1/videos/${ref.kind}/${encodeURIComponent(ref.taskId)}`;

export interface KlingCreate {
  kind: KlingKind;
  mode: KlingMode;
  body: Record<string, unknown>;
}

/**
 * The create call for a validated request, or why Kling cannot carry it (refused, never dropped):
 * two first (or last) frames, or a ratio beside an image (an image-to-video task takes the
 * image's own aspect ratio).
 */
export function klingCreate(upstreamModel: string, request: NormalisedVideoRequest): KlingCreate | string {
  if (!MODES.includes(request.resolution)) return `resolution ${request.resolution} is not a Kling mode (std, pro)`;
  if (request.reference_images.length > 0) return 'reference_images are not taken by this model';
  if (request.watermark !== null) return 'watermark is not taken by this model';
  const mode = request.resolution as KlingMode;
  const prompt = request.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  const images = request.content.filter((c) => c.type === 'image_url');
  const first = images.filter((c) => (c.role ?? 'first_frame') === 'first_frame');
  const last = images.filter((c) => c.role === 'last_frame');
  if (first.length > 1 || last.length > 1 || first.length + last.length !== images.length)
    return 'an image-to-video task takes at most one first_frame and one last_frame image';
  const common = {
    model_name: upstreamModel,
    prompt,
    mode,
    duration: String(request.seconds),
    ...(request.generate_audio === null ? {} : { sound: request.generate_audio ? 'on' : 'off' }),
  };
  if (images.length === 0) return { kind: 'text2video', mode, body: { ...common, ...(request.ratio ? { aspect_ratio: request.ratio } : {}) } };
  if (request.ratio) return 'ratio (or size) cannot be given with an image input: the video takes the aspect ratio of its first frame';
  const image = first[0] && imageOf(first[0].image_url!.url);
  const imageTail = last[0] && imageOf(last[0].image_url!.url);
  if (image === null || imageTail === null) return 'an inline image must be a base64 data: URL';
  return { kind: 'image2video', mode, body: { ...common, ...(image ? { image } : {}), ...(imageTail ? { image_tail: imageTail } : {}) } };
}

/** A URL as it is; inline data as Kling wants it, the Base64 alone without its `data:` prefix (null: not Base64). */
function imageOf(url: string): string | null {
  if (!url.startsWith('data:')) return url;
  const comma = url.indexOf(',');
  return comma > 0 && url.slice(0, comma).endsWith(';base64') ? url.slice(comma + 1) : null;
}
