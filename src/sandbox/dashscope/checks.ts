// What the simulated DashScope refuses on create, as DashScope documents it: a call without
// `X-DashScope-Async: enable` (403 AccessDenied), a missing model or input, and values outside the
// documented ones (400 InvalidParameter naming the field). Unknown fields are not refused: no
// evidence says DashScope refuses them (openapi/upstream/README.md, "Strictness").
import { textOf } from '../task-directives.ts';

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

const MEDIA = new Set([
  'first_frame',
  'last_frame',
  'driving_audio',
  'first_clip',
  'reference_image',
  'reference_video',
  'reference_audio',
  'reference_voice',
  'video',
  'file',
  'link',
]);
const RATIOS = new Set(['16:9', '9:16', '1:1', '4:3', '3:4']);
const invalid = (message: string): Refusal => ({ status: 400, code: 'InvalidParameter', message });

export function refusalOf(headers: Record<string, string | string[] | undefined>, body: Record<string, unknown>): Refusal | undefined {
  if (headers['x-dashscope-async'] !== 'enable') return { status: 403, code: 'AccessDenied', message: 'current user api does not support synchronous calls' };
  if (typeof body.model !== 'string' || !body.model)
    return { status: 400, code: 'BadRequest.EmptyModel', message: 'Required parameter "model" missing from request.' };
  const input = body.input as Record<string, unknown> | undefined;
  if (!input || typeof input !== 'object') return { status: 400, code: 'BadRequest.EmptyInput', message: 'Required input parameter missing from request.' };
  const media = (input.media ?? []) as Array<Record<string, unknown>>;
  if (!Array.isArray(media)) return invalid('The parameter `input.media` must be an array.');
  for (const [i, item] of media.entries()) {
    if (!MEDIA.has(String(item?.type))) return invalid(`The parameter \`input.media[${i}].type\` is not supported: ${String(item?.type)}.`);
    if (typeof item.url !== 'string' || !item.url) return invalid(`The parameter \`input.media[${i}].url\` is required.`);
  }
  const types = media.map((m) => String(m.type));
  if (types.some((t) => t.endsWith('_frame')) && types.some((t) => t.startsWith('reference_')))
    return invalid('First/last frames and reference media cannot be used in one request.');
  if (media.length === 0 && (typeof input.prompt !== 'string' || !input.prompt.trim())) return invalid('The parameter `input.prompt` is required.');
  const parameters = (body.parameters ?? {}) as Record<string, unknown>;
  const wan27 = body.model.startsWith('wan2.7');
  const resolutions = wan27 ? ['720P', '1080P'] : ['480P', '720P', '1080P'];
  if (parameters.resolution !== undefined && !resolutions.includes(String(parameters.resolution)))
    return invalid(`The parameter \`parameters.resolution\` must be one of ${resolutions.join(', ')}: ${String(parameters.resolution)}.`);
  if (parameters.ratio !== undefined && !RATIOS.has(String(parameters.ratio)))
    return invalid(`The parameter \`parameters.ratio\` is not supported: ${String(parameters.ratio)}.`);
  const duration = parameters.duration;
  const longest = wan27 ? 15 : 30;
  if (
    duration !== undefined &&
    !(Number.isInteger(duration) && (((duration as number) >= 2 && (duration as number) <= longest) || (!wan27 && duration === -1)))
  )
    return invalid(`The parameter \`parameters.duration\` is out of range: ${String(duration)}.`);
  for (const flag of ['watermark', 'prompt_extend'])
    if (parameters[flag] !== undefined && typeof parameters[flag] !== 'boolean') return invalid(`The parameter \`parameters.${flag}\` must be a boolean.`);
  return undefined;
}

/** DashScope-only switches beside the shared ones (task-directives.ts), in the prompt. */
export interface DashScopeBehaviour {
  /** Billed input video seconds (default: 2.5 s per reference video, at most 5). */
  inputSeconds?: number;
  /** usage.duration as answered (default input + output): another value contradicts the parts. */
  total?: number;
  /** usage.SR as answered (default the requested tier). */
  sr?: number;
  /** The create is refused: the account is in arrears. */
  arrears?: boolean;
}

export function dashscopeDirectives(node: unknown): DashScopeBehaviour {
  const behaviour: DashScopeBehaviour = {};
  for (const match of textOf(node).matchAll(/\[\[sim ([^\]]*)\]\]/g)) {
    for (const token of (match[1] ?? '').trim().split(/\s+/)) {
      const [name, value] = token.split('=');
      if (name === 'input_seconds' && value) behaviour.inputSeconds = Number(value);
      else if (name === 'total' && value) behaviour.total = Number(value);
      else if (name === 'sr' && value) behaviour.sr = Number(value);
      else if (name === 'arrears') behaviour.arrears = true;
    }
  }
  return behaviour;
}
