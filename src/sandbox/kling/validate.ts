// What the simulated Kling refuses in a create body, as Kling's error table words it: code 1201
// (invalid parameter value) for a field it does not document or a value outside its documented
// range, 1203 for a model it does not know. Image-to-video takes no aspect_ratio (the image has
// one) and an image as a URL or as bare Base64: a `data:` prefix is refused, as Kling's docs say.
export type SimKind = 'text2video' | 'image2video';

export interface Refusal {
  status: number;
  code: number;
  message: string;
}

const COMMON = [
  'model_name',
  'model',
  'prompt',
  'negative_prompt',
  'cfg_scale',
  'mode',
  'sound',
  'duration',
  'camera_control',
  'watermark_info',
  'callback_url',
  'external_task_id',
];
const FIELDS: Record<SimKind, ReadonlySet<string>> = {
  text2video: new Set([...COMMON, 'aspect_ratio']),
  image2video: new Set([...COMMON, 'image', 'image_tail', 'static_mask', 'dynamic_masks', 'voice_list']),
};
const DURATIONS = new Set(['3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15']);
const RATIOS = new Set(['16:9', '9:16', '1:1']);
const MAX_PROMPT = 2500;

const invalid = (message: string): Refusal => ({ status: 400, code: 1201, message });
const isText = (value: unknown) => typeof value === 'string';

function checkImage(field: string, value: unknown): Refusal | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') return invalid(`${field} must be an image URL or Base64 string`);
  if (value.startsWith('data:')) return invalid(`${field}: Base64 must not carry a data: prefix`);
  if (/^https?:\/\//.test(value) || /^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  return invalid(`${field} must be an image URL or Base64 string`);
}

export function refusalOf(kind: SimKind, body: Record<string, unknown>): Refusal | undefined {
  const unknown = Object.keys(body).find((field) => !FIELDS[kind].has(field));
  if (unknown) return invalid(`Invalid parameter: ${unknown} is not a parameter of ${kind}`);
  if (body.model_name !== undefined && (typeof body.model_name !== 'string' || !/^kling-/.test(body.model_name)))
    return { status: 404, code: 1203, message: `model_name ${String(body.model_name)} not found` };
  const prompt = body.prompt;
  if (kind === 'text2video' && (!isText(prompt) || (prompt as string).trim() === '')) return invalid('prompt is required');
  if (prompt !== undefined && (!isText(prompt) || (prompt as string).length > MAX_PROMPT))
    return invalid(`prompt must be a string of at most ${MAX_PROMPT} characters`);
  if (body.negative_prompt !== undefined && (!isText(body.negative_prompt) || (body.negative_prompt as string).length > MAX_PROMPT))
    return invalid(`negative_prompt must be a string of at most ${MAX_PROMPT} characters`);
  if (body.mode !== undefined && body.mode !== 'std' && body.mode !== 'pro') return invalid('mode must be std or pro');
  if (body.sound !== undefined && body.sound !== 'on' && body.sound !== 'off') return invalid('sound must be on or off');
  if (body.duration !== undefined && !(isText(body.duration) && DURATIONS.has(body.duration as string)))
    return invalid('duration must be a string from "3" to "15"');
  if (body.aspect_ratio !== undefined && !RATIOS.has(String(body.aspect_ratio))) return invalid('aspect_ratio must be 16:9, 9:16 or 1:1');
  if (body.cfg_scale !== undefined && !(typeof body.cfg_scale === 'number' && body.cfg_scale >= 0 && body.cfg_scale <= 1))
    return invalid('cfg_scale must be a number from 0 to 1');
  const watermark = body.watermark_info as { enabled?: unknown } | undefined;
  if (watermark !== undefined && (typeof watermark !== 'object' || watermark === null || typeof watermark.enabled !== 'boolean'))
    return invalid('watermark_info.enabled must be a boolean');
  for (const field of ['callback_url', 'external_task_id', 'model'])
    if (body[field] !== undefined && !isText(body[field])) return invalid(`${field} must be a string`);
  if (kind === 'image2video') {
    if (body.image === undefined && body.image_tail === undefined) return invalid('image or image_tail is required');
    return checkImage('image', body.image) ?? checkImage('image_tail', body.image_tail);
  }
  return undefined;
}
