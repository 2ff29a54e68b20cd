// Checks a video request against the model's catalogue entry and normalises it. Every refusal
// names the field. File ids (ours or a provider's) are refused everywhere: the gateway neither
// uploads, downloads nor archives assets.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
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

function checkUrl(url: unknown, param: string, model: ResolvedModel): FieldError | undefined {
  if (typeof url !== 'string' || url === '') return { param, message: `${param} must be a URL.` };
  if (/^https?:\/\//i.test(url)) return undefined;
  if (url.startsWith('data:')) {
    const inline = model.video!.inline_base64;
    if (!inline) return { param, message: `${model.id} does not accept inline Base64 data; give an https URL.` };
    const bytes = Math.floor(((url.length - url.indexOf(',') - 1) * 3) / 4);
    if (typeof inline === 'object' && bytes > inline.max_bytes) return { param, message: `${param} is ${bytes} bytes of inline data; ${model.id} accepts at most ${inline.max_bytes}.` };
    return undefined;
  }
  return { param, message: `${param} must be an http(s) URL${model.video!.inline_base64 ? ' or a data: URL' : ''}; file ids and other schemes are not accepted.` };
}

export function validateVideoRequest(raw: Raw, model: ResolvedModel): NormalisedVideoRequest | FieldError {
  const video = model.video!;
  const tiers = Object.keys((model.price as VideoPrice).per_second);
  for (const forbidden of ['file_id', 'input_reference', 'image', 'file']) {
    if (raw[forbidden] !== undefined) return { param: forbidden, message: `${forbidden} is not accepted: pass assets as URLs in content or reference_images.` };
  }
  const content: VideoContentItem[] = [];
  if (typeof raw.prompt === 'string' && raw.prompt.trim()) content.push({ type: 'text', text: raw.prompt });
  const items = Array.isArray(raw.content) ? (raw.content as Raw[]) : [];
  for (const [i, item] of items.entries()) {
    const type = item.type as VideoContentItem['type'];
    if (!video.content_types.includes(type)) return { param: `content[${i}].type`, message: `${model.id} accepts content of types ${video.content_types.join(', ')}, not ${String(type)}.` };
    if (type === 'text') {
      if (typeof item.text !== 'string' || !item.text.trim()) return { param: `content[${i}].text`, message: 'A text item needs text.' };
    } else {
      const ref = item[type] as Raw | undefined;
      if (ref && 'file_id' in ref) return { param: `content[${i}].${type}.file_id`, message: 'File ids are not accepted: give a URL.' };
      const bad = checkUrl(ref?.url, `content[${i}].${type}.url`, model);
      if (bad) return bad;
    }
    content.push(item as unknown as VideoContentItem);
  }
  if (!content.some((c) => c.type === 'text')) return { param: 'prompt', message: 'A prompt (or a text content item) is required.' };

  const seconds = raw.seconds === undefined ? video.seconds[0]! : Number(raw.seconds);
  if (!Number.isInteger(seconds) || !video.seconds.includes(seconds)) return { param: 'seconds', message: `${model.id} makes videos of ${video.seconds.join(', ')} seconds.` };
  const resolution = raw.resolution === undefined ? tiers[0]! : String(raw.resolution);
  if (!tiers.includes(resolution)) return { param: 'resolution', message: `${model.id} is priced for resolutions ${tiers.join(', ')}.` };

  const references = Array.isArray(raw.reference_images) ? (raw.reference_images as Raw[]) : [];
  if (references.length > 0) {
    if (!video.reference_images) return { param: 'reference_images', message: `${model.id} does not take reference_images.` };
    if (references.length > video.reference_images.max) return { param: 'reference_images', message: `${model.id} takes at most ${video.reference_images.max} reference images.` };
    for (const [i, ref] of references.entries()) {
      const bad = checkUrl(ref.url, `reference_images[${i}].url`, model);
      if (bad) return bad;
    }
  }
  const generateAudio = bool(raw.generate_audio);
  if (generateAudio === 'invalid') return { param: 'generate_audio', message: 'generate_audio must be true or false.' };
  const watermark = bool(raw.watermark);
  if (watermark === 'invalid') return { param: 'watermark', message: 'watermark must be true or false.' };
  return {
    model: model.id,
    content,
    seconds,
    resolution,
    ratio: typeof raw.ratio === 'string' ? raw.ratio : null,
    reference_images: references.map((r) => ({ url: String(r.url) })),
    generate_audio: generateAudio,
    watermark,
  };
}
