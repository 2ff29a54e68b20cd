// Checks a video request against the model's catalogue entry and its protocol, and normalises it.
// Every option is mapped for the provider or refused naming the field and the model: nothing is
// dropped. File ids (ours or a provider's) are refused everywhere: the gateway neither uploads,
// downloads nor archives assets. Unknown fields never get here (the spec closes the body).
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
import { VIDEO_PROTOCOL_TRAITS, type VideoProtocol } from '../../catalogue/video-protocols.ts';
import { resolutionTiers } from '../../catalogue/video-tiers.ts';
import type { NormalisedVideoRequest, VideoContentItem } from '../../providers/video.ts';

export interface FieldError {
  param: string;
  message: string;
}

type Raw = Record<string, unknown>;

const bool = (value: unknown): boolean | null | 'invalid' => {
  if (value === undefined || value === null) return null;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return 'invalid';
};

const ROLES: Record<string, readonly string[]> = { video_url: ['reference_video'], audio_url: ['reference_audio'] };
const list = (values: readonly string[]) => values.join(', ');

function checkUrl(url: unknown, param: string, model: ResolvedModel): FieldError | undefined {
  if (typeof url !== 'string' || url === '') return { param, message: `${param} must be a URL.` };
  if (/^https?:\/\//i.test(url)) return undefined;
  if (url.startsWith('data:')) {
    const inline = model.video!.inline_base64;
    if (!inline) return { param, message: `${model.id} does not accept inline Base64 data; give an https URL.` };
    const bytes = Math.floor(((url.length - url.indexOf(',') - 1) * 3) / 4);
    if (typeof inline === 'object' && bytes > inline.max_bytes)
      return { param, message: `${param} is ${bytes} bytes of inline data; ${model.id} accepts at most ${inline.max_bytes}.` };
    return undefined;
  }
  return {
    param,
    message: `${param} must be an http(s) URL${model.video!.inline_base64 ? ' or a data: URL' : ''}; file ids and other schemes are not accepted.`,
  };
}

/** The prompt, text items and other inputs: one text input (joined), then the rest in order. */
function readContent(raw: Raw, model: ResolvedModel, protocol: VideoProtocol): VideoContentItem[] | FieldError {
  const video = model.video!;
  const traits = VIDEO_PROTOCOL_TRAITS[protocol];
  const texts: string[] = typeof raw.prompt === 'string' && raw.prompt.trim() ? [raw.prompt] : [];
  const inputs: VideoContentItem[] = [];
  const items = Array.isArray(raw.content) ? (raw.content as Raw[]) : [];
  for (const [i, item] of items.entries()) {
    const type = item.type as VideoContentItem['type'];
    if (!video.content_types.includes(type))
      return { param: `content[${i}].type`, message: `${model.id} accepts content of types ${list(video.content_types)}, not ${String(type)}.` };
    if (type === 'text') {
      if (typeof item.text !== 'string' || !item.text.trim()) return { param: `content[${i}].text`, message: 'A text item needs text.' };
      texts.push(item.text);
      continue;
    }
    const ref = item[type] as Raw | undefined;
    if (ref && 'file_id' in ref) return { param: `content[${i}].${type}.file_id`, message: 'File ids are not accepted: give a URL.' };
    const bad = checkUrl(ref?.url, `content[${i}].${type}.url`, model);
    if (bad) return bad;
    const roles = type === 'image_url' ? traits.imageRoles : ROLES[type]!;
    if (item.role !== undefined && !roles.includes(String(item.role)))
      return { param: `content[${i}].role`, message: `${model.id} takes ${type} inputs in the roles ${list(roles)}, not ${String(item.role)}.` };
    if (item.seconds !== undefined && type !== 'video_url')
      return { param: `content[${i}].seconds`, message: 'seconds declares the length of a video input: only video_url items take it.' };
    inputs.push({ type, [type]: { url: String(ref!.url) }, ...(item.role === undefined ? {} : { role: String(item.role) }) } as VideoContentItem);
  }

  const reference = raw.input_reference;
  if (reference !== undefined) {
    // OpenAI's input_reference ({image_url}): the image the video starts from.
    if (!video.content_types.includes('image_url')) return { param: 'input_reference', message: `${model.id} takes no image input.` };
    if (!reference || typeof reference !== 'object')
      return { param: 'input_reference', message: 'input_reference must be an object with image_url (file uploads are not accepted).' };
    if ('file_id' in reference) return { param: 'input_reference.file_id', message: 'File ids are not accepted: give input_reference.image_url.' };
    const bad = checkUrl((reference as Raw).image_url, 'input_reference.image_url', model);
    if (bad) return bad;
    inputs.unshift({ type: 'image_url', image_url: { url: String((reference as Raw).image_url) }, role: 'first_frame' });
  }
  const images = inputs.filter((c) => c.type === 'image_url').length;
  if (traits.maxImages !== undefined && images > traits.maxImages) {
    return {
      param: reference === undefined ? 'content' : 'input_reference',
      message: `${model.id} takes at most ${traits.maxImages} image input${traits.maxImages === 1 ? '' : 's'}.`,
    };
  }
  if (texts.length === 0) return { param: 'prompt', message: 'A prompt (or a text content item) is required.' };
  return [{ type: 'text', text: texts.join('\n') }, ...inputs];
}

/** `size`, or `resolution` and `ratio`: the priced tier, the ratio and the pixel size to send. */
function readShape(raw: Raw, model: ResolvedModel, protocol: VideoProtocol): Pick<NormalisedVideoRequest, 'resolution' | 'ratio' | 'size'> | FieldError {
  const video = model.video!;
  const sizeOnly = VIDEO_PROTOCOL_TRAITS[protocol].sizeOnly;
  const tiers = resolutionTiers((model.price as VideoPrice).per_second);
  const sizes = Object.entries(video.sizes ?? {});
  if (raw.size !== undefined) {
    const size = String(raw.size);
    const entry = video.sizes?.[size];
    if (!entry)
      return {
        param: 'size',
        message: sizes.length
          ? `${model.id} takes the sizes ${list(sizes.map(([s]) => s))}, not ${size}.`
          : `${model.id} takes no size; give resolution (${list(tiers)})${video.ratios ? ' and ratio' : ''}.`,
      };
    if (raw.resolution !== undefined && String(raw.resolution) !== entry.resolution)
      return { param: 'size', message: `size ${size} is ${entry.resolution}, not ${String(raw.resolution)}: give size or resolution.` };
    if (raw.ratio !== undefined && String(raw.ratio) !== entry.ratio)
      return { param: 'size', message: `size ${size} is ${entry.ratio}, not ${String(raw.ratio)}: give size or ratio.` };
    return { resolution: entry.resolution, ratio: entry.ratio, size };
  }
  const resolution = raw.resolution === undefined ? tiers[0]! : String(raw.resolution);
  if (!tiers.includes(resolution)) return { param: 'resolution', message: `${model.id} is priced for resolutions ${list(tiers)}.` };
  const ratio = raw.ratio === undefined ? null : String(raw.ratio);
  const fits = sizes.filter(([, e]) => e.resolution === resolution && (ratio === null || e.ratio === ratio));
  if (ratio !== null) {
    const accepted = sizeOnly ? [...new Set(sizes.filter(([, e]) => e.resolution === resolution).map(([, e]) => e.ratio))] : (video.ratios ?? []);
    if (!accepted.includes(ratio))
      return {
        param: 'ratio',
        message: accepted.length
          ? `${model.id} takes the ratios ${list(accepted)}${sizeOnly ? ` at ${resolution}` : ''}, not ${ratio}.`
          : `${model.id} takes no ratio.`,
      };
  }
  if (!sizeOnly) return { resolution, ratio, size: ratio !== null && fits[0] ? fits[0][0] : null };
  // The provider takes a pixel size only: the first listed size of the tier (and ratio).
  if (!fits[0]) return { param: 'resolution', message: `${model.id} has no size at ${resolution}.` };
  return { resolution, ratio: fits[0][1].ratio, size: fits[0][0] };
}

export function validateVideoRequest(raw: Raw, model: ResolvedModel, protocol: VideoProtocol): NormalisedVideoRequest | FieldError {
  const video = model.video!;
  const content = readContent(raw, model, protocol);
  if ('param' in content) return content;

  const seconds = raw.seconds === undefined ? video.seconds[0]! : Number(raw.seconds);
  if (!Number.isInteger(seconds) || !video.seconds.includes(seconds))
    return { param: 'seconds', message: `${model.id} makes videos of ${video.seconds.join(', ')} seconds.` };
  const shape = readShape(raw, model, protocol);
  if ('param' in shape) return shape;

  const references = Array.isArray(raw.reference_images) ? (raw.reference_images as Raw[]) : [];
  if (references.length > 0) {
    if (!video.reference_images) return { param: 'reference_images', message: `${model.id} does not take reference_images.` };
    if (references.length > video.reference_images.max)
      return { param: 'reference_images', message: `${model.id} takes at most ${video.reference_images.max} reference images.` };
    for (const [i, ref] of references.entries()) {
      const bad = checkUrl(ref.url, `reference_images[${i}].url`, model);
      if (bad) return bad;
    }
  }
  const generateAudio = bool(raw.generate_audio);
  if (generateAudio === 'invalid') return { param: 'generate_audio', message: 'generate_audio must be true or false.' };
  if (generateAudio !== null && !video.audio)
    return { param: 'generate_audio', message: `${model.id} does not take generate_audio (its provider has no sound switch).` };
  const watermark = bool(raw.watermark);
  if (watermark === 'invalid') return { param: 'watermark', message: 'watermark must be true or false.' };
  if (watermark !== null && !video.watermark) return { param: 'watermark', message: `${model.id} does not take watermark.` };
  const videoInputs = Array.isArray(raw.content) ? (raw.content as Raw[]).filter((item) => item.type === 'video_url') : [];
  return {
    model: model.id,
    content,
    seconds,
    ...shape,
    reference_images: references.map((r) => ({ url: String(r.url) })),
    generate_audio: generateAudio,
    watermark,
    ...(videoInputs.length > 0 ? { reference_video_seconds: referenceVideoSeconds(videoInputs, video) } : {}),
  };
}

/**
 * The input video seconds a hold counts: each video input at the length the request declares,
 * else at the most the model bills for one (its `reference_video_seconds`, else its longest output).
 */
function referenceVideoSeconds(items: Raw[], video: NonNullable<ResolvedModel['video']>): number {
  const most = video.reference_video_seconds ?? Math.max(...video.seconds);
  return items.reduce((sum, item) => sum + (typeof item.seconds === 'number' ? item.seconds : most), 0);
}

/** The whole seconds a task's hold covers: the output asked for, and the input video the provider may bill. */
export const heldSeconds = (request: Pick<NormalisedVideoRequest, 'seconds' | 'reference_video_seconds'>): number =>
  request.seconds + Math.ceil(request.reference_video_seconds ?? 0);
