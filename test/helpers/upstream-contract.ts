// Validates what the gateway sends to (and what simulators answer for) the upstream APIs against
// the vendored contracts in openapi/upstream/*.yaml (see the README there for their sources).
//
//   validateUpstreamRequest('openai-chat-completions', 'POST', '/chat/completions', body)
//   validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, body)
//   validateSseEvent('anthropic-messages', { type: 'ping' })
//   validateSseStream('anthropic-messages', sseText)
//
// Each returns [] when valid, else readable messages ("body.messages[0]: missing required field
// \"content\""). Paths are relative to each API's base URL and may carry a query string.
//
// Strictness: a request body is closed (unknown fields reported) where the real API is known to
// refuse unknown fields. OpenAI's published document does not say so, so STRICTNESS below closes
// chat completions itself; everything else is open (openapi/upstream/README.md, "Strictness").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

export type UpstreamApi =
  | 'anthropic-messages'
  | 'openai-chat-completions'
  | 'openai-responses'
  | 'openai-responses-websocket'
  | 'openai-videos'
  | 'ark-video-tasks'
  | 'minimax-video-v2'
  | 'dashscope-video'
  | 'kling-video'
  | 'vertex-veo'
  | 'google-cloud-storage'
  | 'google-oauth2-token'
  | 'gemini-api';
export type UpstreamSseApi = 'anthropic-messages' | 'openai-chat-completions' | 'openai-responses' | 'gemini-api';

interface ApiRules {
  file: string;
  /**
   * Operations ("METHOD /path-template") whose JSON body the real API refuses to extend although
   * the document leaves it open; the validator closes them with `unevaluatedProperties: false`.
   */
  closedRequests: string[];
  /** Schema of error bodies for statuses the document does not declare. */
  errorSchema?: string;
  /** Schema of one stream frame's data. */
  sseEvent?: string;
  /** Anthropic streams: every frame needs an `event:` line equal to `data.type`. */
  sseNamedEvents?: boolean;
  /** OpenAI streams end with `data: [DONE]`. */
  sseDone?: boolean;
  /** Our documents tag unions with `discriminator`; OpenAI's use mappings Ajv does not run. */
  discriminator: boolean;
  /**
   * The document's `oneOf` branches overlap, so a valid value matches several (OpenAI's input
   * items: `{type: "message", role, content}` is both an EasyInputMessage and an InputMessage);
   * read each `oneOf` as `anyOf`.
   */
  overlappingOneOf?: boolean;
}

const STRICTNESS: Record<UpstreamApi, ApiRules> = {
  'anthropic-messages': {
    file: 'anthropic-messages.yaml',
    // Left open: only issue threads, not the SDK or docs, show the API refusing unknown fields.
    // To close them, list 'POST /v1/messages' and 'POST /v1/messages/count_tokens' here.
    closedRequests: [],
    sseEvent: '#/components/schemas/MessageStreamEvent',
    sseNamedEvents: true,
    discriminator: true,
  },
  'openai-chat-completions': {
    file: 'openai-chat-completions.yaml',
    // OpenAI answers 400 "Unrecognized request argument supplied: <name>" (README has the evidence).
    closedRequests: ['POST /chat/completions'],
    errorSchema: '#/components/schemas/ErrorResponse',
    sseEvent: '#/components/schemas/CreateChatCompletionStreamResponse',
    sseDone: true,
    discriminator: false,
  },
  'openai-responses': {
    file: 'openai-responses.yaml',
    // Left open: no evidence that api.openai.com refuses unknown fields here, and Codex sends one
    // the document does not list (`client_metadata`); see the README's Strictness table.
    closedRequests: [],
    errorSchema: '#/components/schemas/ErrorResponse',
    sseEvent: '#/components/schemas/ResponseStreamEvent',
    sseNamedEvents: true,
    discriminator: false,
    overlappingOneOf: true,
  },
  // No operation: the WebSocket mode's messages only (validateWebSocketMessage).
  'openai-responses-websocket': { file: 'openai-responses-websocket.yaml', closedRequests: [], discriminator: false, overlappingOneOf: true },
  'openai-videos': {
    file: 'openai-videos.yaml',
    closedRequests: [],
    errorSchema: '#/components/schemas/ErrorResponse',
    discriminator: false,
  },
  'ark-video-tasks': { file: 'ark-video-tasks.yaml', closedRequests: [], discriminator: true },
  'minimax-video-v2': { file: 'minimax-video-v2.yaml', closedRequests: [], discriminator: true },
  'dashscope-video': { file: 'dashscope-video.yaml', closedRequests: [], discriminator: false },
  'kling-video': {
    file: 'kling-video.yaml',
    // No first-party statement either way; the simulator refuses undocumented fields (code 1201), so both creates are closed.
    closedRequests: ['POST /v1/videos/text2video', 'POST /v1/videos/image2video'],
    errorSchema: '#/components/schemas/ErrorResponse',
    discriminator: false,
  },
  // Both request messages are closed in the document itself (`additionalProperties: false`):
  // Google's JSON transcoding refuses unknown names of a proto message.
  'vertex-veo': { file: 'vertex-veo.yaml', closedRequests: [], discriminator: false },
  'google-cloud-storage': { file: 'google-cloud-storage.yaml', closedRequests: [], discriminator: false },
  'google-oauth2-token': { file: 'google-oauth2-token.yaml', closedRequests: [], discriminator: false },
  // GenerateContentRequest and CountTokensRequest are closed in the document (proto messages).
  'gemini-api': { file: 'gemini-api.yaml', closedRequests: [], sseEvent: '#/components/schemas/GenerateContentResponse', discriminator: false },
};

const UPSTREAM_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi/upstream');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Json = Record<string, any>;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  literalLength: number;
  pointer: string; // of the operation object
  operation: Json;
}

interface LoadedApi {
  name: UpstreamApi;
  rules: ApiRules;
  id: string;
  doc: Json;
  ajv: InstanceType<typeof Ajv2020.default>;
  routes: Route[];
  pointers: WeakMap<object, string>;
  validators: Map<string, ValidateFunction>;
}

const loaded = new Map<UpstreamApi, LoadedApi>();

// ----- loading -------------------------------------------------------------------------------

/**
 * OpenAI's 3.1 document still uses the 3.0 keyword `nullable`, which Ajv rejects without `type`.
 * Rewrite it to 3.1 (null added to `type`, and to `enum` as the published examples send null).
 */
function normaliseNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseNullable);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key] = normaliseNullable(child);
  if (!('nullable' in out)) return out;
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...out.type, 'null'];
  else return { anyOf: [out, { type: 'null' }] };
  return out;
}

/** `oneOf` read as `anyOf` (see ApiRules.overlappingOneOf). */
function oneOfAsAnyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(oneOfAsAnyOf);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key === 'oneOf' ? 'anyOf' : key] = oneOfAsAnyOf(child);
  return out;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON pointer of every object in the document, to find a union again from an Ajv error. */
function indexPointers(value: unknown, pointer: string, into: WeakMap<object, string>): void {
  if (value === null || typeof value !== 'object') return;
  into.set(value, pointer);
  for (const [key, child] of Object.entries(value)) indexPointers(child, `${pointer}/${escapePointer(key)}`, into);
}

function resolvePointer(doc: Json, pointer: string): any {
  let node: any = doc;
  for (const raw of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')) {
    node = node?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function deref(doc: Json, node: any): any {
  for (let depth = 0; node && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && depth < 20; depth++) node = resolvePointer(doc, node.$ref);
  return node;
}

function collectFormats(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) value.forEach((v) => collectFormats(v, into));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'format' && typeof child === 'string') into.add(child);
      else collectFormats(child, into);
    }
  }
}

function load(name: UpstreamApi): LoadedApi {
  const cached = loaded.get(name);
  if (cached) return cached;
  const rules = STRICTNESS[name];
  const id = `https://upstream-contract.invalid/${name}`;
  const published = normaliseNullable(parse(fs.readFileSync(path.join(UPSTREAM_DIR, rules.file), 'utf8')));
  const doc = (rules.overlappingOneOf ? oneOfAsAnyOf(published) : published) as Json;
  doc.$id = id;

  const ajv = new Ajv2020.default({ strict: false, allErrors: true, verbose: true, discriminator: rules.discriminator });
  addFormats.default(ajv);
  // OpenAPI formats Ajv does not know: `unixtime` is checked, the others (`binary`, ...) annotate.
  const formats = new Set<string>();
  collectFormats(doc, formats);
  for (const format of formats) {
    if (format === 'unixtime') ajv.addFormat(format, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
    else if (!(format in ajv.formats)) ajv.addFormat(format, true);
  }
  ajv.addSchema(doc);

  const routes: Route[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const segments = template.split('/');
      // A `{param}` is one segment, or the part of one before a custom method (`{model}:predictLongRunning`).
      const literal = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
      const segment = (text: string) =>
        text
          .split(/(\{[^}]+\})/)
          .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+?' : literal(part)))
          .join('');
      const pattern = new RegExp(`^${segments.map(segment).join('/')}$`);
      routes.push({
        method: method.toUpperCase(),
        template,
        pattern,
        literalLength: segments.filter((s) => !s.startsWith('{')).join('/').length,
        pointer: `#/paths/${escapePointer(template)}/${method}`,
        operation: item[method],
      });
    }
  }
  routes.sort((a, b) => b.literalLength - a.literalLength); // /videos/{id}/content before /videos/{id}

  const pointers = new WeakMap<object, string>();
  indexPointers(doc, '#', pointers);
  const api: LoadedApi = { name, rules, id, doc, ajv, routes, pointers, validators: new Map() };
  loaded.set(name, api);
  return api;
}

function validatorFor(api: LoadedApi, pointer: string, closed = false): ValidateFunction {
  const key = `${closed ? 'closed:' : ''}${pointer}`;
  let validate = api.validators.get(key);
  if (!validate) {
    const ref = `${api.id}${pointer}`;
    validate = api.ajv.compile(closed ? { $ref: ref, unevaluatedProperties: false } : { $ref: ref });
    api.validators.set(key, validate);
  }
  return validate;
}

// ----- readable errors -------------------------------------------------------------------------

function where(prefix: string, instancePath: string): string {
  let out = prefix;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
}

function isUnion(error: ErrorObject): boolean {
  return error.keyword === 'oneOf' || error.keyword === 'anyOf';
}

function isWithin(instancePath: string, base: string): boolean {
  return instancePath === base || instancePath.startsWith(`${base}/`);
}

/** Values a union's branches accept for `type` (tags), for "is not one of" messages. */
function tagValues(api: LoadedApi, union: Json, tag: string): string[] {
  const values: string[] = [];
  for (const branch of (union.oneOf ?? union.anyOf ?? []) as Json[]) {
    const prop = deref(api.doc, deref(api.doc, branch)?.properties?.[tag]);
    if (prop?.const !== undefined) values.push(String(prop.const));
    else if (Array.isArray(prop?.enum)) values.push(...prop.enum.map(String));
  }
  return values;
}

function describe(api: LoadedApi, error: ErrorObject, prefix: string, base: string): string {
  const at = where(prefix, base + error.instancePath);
  const p = error.params as Json;
  switch (error.keyword) {
    case 'required':
      return `${at}: missing required field "${p.missingProperty}"`;
    case 'additionalProperties':
      return `${at}: unknown field "${p.additionalProperty}" (the upstream refuses unknown fields)`;
    case 'unevaluatedProperties':
      return `${at}: unknown field "${p.unevaluatedProperty}" (the upstream refuses unknown fields)`;
    case 'type':
      return `${at}: must be ${Array.isArray(p.type) ? p.type.join(' or ') : p.type}, got ${kindOf(error.data)}`;
    case 'const':
      return `${at}: must be ${show(p.allowedValue)}, got ${show(error.data)}`;
    case 'enum':
      return `${at}: ${show(error.data)} is not one of ${(p.allowedValues as unknown[]).map(show).join(', ')}`;
    case 'discriminator': {
      if (p.error !== 'mapping') return `${at}: "${p.tag}" must be a string`;
      const known = tagValues(api, error.parentSchema as Json, p.tag);
      return `${where(at, `/${p.tag}`)}: ${show(p.tagValue)} is not one of ${known.map(show).join(', ')}`;
    }
    default:
      return `${at}: ${error.message ?? error.keyword}`;
  }
}

interface BranchMiss {
  score: number;
  messages: string[];
  /** The JSON types the branch wanted when the value is of another type. */
  kinds?: string[];
  /** The tag property (`type`, `role`, ...) and the values the branch wanted there. */
  tag?: { name: string; allowed: unknown[] };
}

/** How far a value is from one branch of a union. */
function missOf(api: LoadedApi, errors: ErrorObject[], value: unknown, prefix: string, base: string, depth: number): BranchMiss {
  const miss: BranchMiss = { score: errors.length, messages: [] };
  const kindError = errors.find((e) => e.keyword === 'type' && e.instancePath === '');
  if (kindError) {
    miss.kinds = ([] as string[]).concat((kindError.params as Json).type);
    miss.score += 1000;
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  for (const e of errors) {
    const p = e.params as Json;
    if (e.keyword === 'discriminator' && e.instancePath === '' && p.error === 'mapping') {
      miss.tag = { name: p.tag, allowed: tagValues(api, e.parentSchema as Json, p.tag) };
    } else if (isObject && /^\/[^/]+$/.test(e.instancePath) && (e.keyword === 'const' || (e.keyword === 'enum' && p.allowedValues.length === 1))) {
      miss.tag = { name: e.instancePath.slice(1), allowed: e.keyword === 'const' ? [p.allowedValue] : p.allowedValues };
    }
  }
  if (miss.tag) miss.score += 100;
  miss.messages = formatErrors(api, errors, prefix, base, depth + 1);
  return miss;
}

/** Explains a failed oneOf/anyOf by the branch that came closest, rather than by every branch. */
function explainUnion(api: LoadedApi, error: ErrorObject, prefix: string, base: string, depth: number): string[] {
  const at = where(prefix, base + error.instancePath);
  const union = error.parentSchema as Json | undefined;
  const pointer = union ? api.pointers.get(union) : undefined;
  const keyword = error.keyword;
  if ((error.params as Json).passingSchemas) return [`${at}: matches more than one of the allowed shapes`];
  if (!union || !pointer || depth > 8) return [`${at}: ${error.message}`];

  const misses: BranchMiss[] = [];
  (union[keyword] as unknown[]).forEach((_branch, i) => {
    const validate = validatorFor(api, `${pointer}/${keyword}/${i}`);
    if (!validate(error.data)) misses.push(missOf(api, validate.errors ?? [], error.data, prefix, base + error.instancePath, depth));
  });
  const best = misses.reduce<BranchMiss | undefined>((a, b) => (!a || b.score < a.score ? b : a), undefined);
  if (!best) return [`${at}: ${error.message}`];
  if (best.score < 100) return best.messages;

  // No branch fits: say which kinds, or which tag values, the union takes.
  if (misses.every((m) => m.kinds)) {
    const kinds = [...new Set(misses.flatMap((m) => m.kinds!))];
    return [`${at}: must be ${kinds.join(' or ')}, got ${kindOf(error.data)}`];
  }
  const tagged = misses.filter((m) => m.tag);
  const name = tagged[0]?.tag?.name;
  if (name && tagged.every((m) => m.tag!.name === name)) {
    const allowed = [...new Set(tagged.flatMap((m) => m.tag!.allowed))];
    return [`${where(at, `/${name}`)}: ${show((error.data as Json)[name])} is not one of ${allowed.map(show).join(', ')}`];
  }
  return [`${at}: ${kindOf(error.data)} ${show(error.data)} matches none of the allowed shapes`];
}

function formatErrors(api: LoadedApi, errors: ErrorObject[], prefix: string, base = '', depth = 0): string[] {
  let remaining = [...errors];
  const messages: string[] = [];
  // Outermost unions first; each takes over every error reported inside its value.
  for (const union of errors.filter(isUnion).sort((a, b) => a.instancePath.length - b.instancePath.length)) {
    if (!remaining.includes(union)) continue;
    remaining = remaining.filter((e) => !isWithin(e.instancePath, union.instancePath));
    messages.push(...explainUnion(api, union, prefix, base, depth));
  }
  // A value of the wrong type also fails its enum/const/format: say only the first.
  const wrongType = new Set(remaining.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  remaining = remaining.filter((e) => e.keyword === 'type' || !wrongType.has(e.instancePath));
  messages.push(...remaining.map((e) => describe(api, e, prefix, base)));
  const unique = [...new Set(messages)];
  return unique.length > 0 || errors.length === 0 ? unique : errors.map((e) => `${where(prefix, base + e.instancePath)}: ${e.message}`);
}

function check(api: LoadedApi, pointer: string, value: unknown, prefix: string, closed = false): string[] {
  const validate = validatorFor(api, pointer, closed);
  return validate(value) ? [] : formatErrors(api, validate.errors ?? [], prefix);
}

// ----- operations ------------------------------------------------------------------------------

function findRoute(api: LoadedApi, method: string, requestPath: string): { route?: Route; query: URLSearchParams; problem?: string } {
  const [pathname = '', search = ''] = requestPath.split('?', 2);
  const query = new URLSearchParams(search);
  const candidates = api.routes.filter((r) => r.pattern.test(pathname));
  const route = candidates.find((r) => r.method === method.toUpperCase());
  if (route) return { route, query };
  if (candidates.length > 0) {
    const allowed = [...new Set(candidates.map((r) => r.method))].join(', ');
    return { query, problem: `${method.toUpperCase()} ${pathname}: method not in the ${api.name} contract (${allowed} are)` };
  }
  return { query, problem: `${method.toUpperCase()} ${pathname}: no such path in the ${api.name} contract (paths are relative to the API base)` };
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function isBinary(value: unknown): boolean {
  return value instanceof Uint8Array || value instanceof ArrayBuffer || (typeof Blob !== 'undefined' && value instanceof Blob);
}

/**
 * Multipart bodies as the validator sees them: an object of fields, with bracketed names
 * (`input_reference[image_url]`, `content[][type]`, as openai-node encodes them) folded into
 * objects and arrays, and files turned into a placeholder string (`format: binary`).
 */
export function formFields(body: unknown): Json {
  let entries: Array<[string, unknown]>;
  if (typeof FormData !== 'undefined' && body instanceof FormData) entries = [...body.entries()];
  else if (body instanceof URLSearchParams) entries = [...body.entries()];
  else if (Array.isArray(body)) entries = body as Array<[string, unknown]>;
  else if (body && typeof body === 'object') entries = Object.entries(body);
  else return {};

  const out: Json = {};
  for (const [name, raw] of entries) setField(out, name, isBinary(raw) ? '[binary]' : raw);
  return out;
}

function setField(out: Json, name: string, value: unknown): void {
  const match = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(name);
  const keys = match ? [match[1]!, ...[...match[2]!.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)] : [name];
  let container: any = out;
  keys.forEach((key, i) => {
    const next = keys[i + 1];
    if (Array.isArray(container)) {
      // `[]`: append a value, or fill the last object until one of its fields repeats.
      if (next === undefined) return void container.push(value);
      let element = container[container.length - 1];
      if (!element || typeof element !== 'object' || next in element) container.push((element = {}));
      container = element;
    } else if (next === undefined) {
      container[key] = value;
    } else {
      container[key] ??= next === '' ? [] : {};
      container = container[key];
    }
  });
}

function checkQuery(api: LoadedApi, route: Route, query: URLSearchParams): string[] {
  const shared = `#/paths/${escapePointer(route.template)}/parameters`;
  const declared = [
    ...((api.doc.paths[route.template].parameters ?? []) as Json[]).map((param, i) => ({ param, pointer: `${shared}/${i}` })),
    ...((route.operation.parameters ?? []) as Json[]).map((param, i) => ({ param, pointer: `${route.pointer}/parameters/${i}` })),
  ];
  const problems: string[] = [];
  for (const { param, pointer } of declared) {
    const p = deref(api.doc, param);
    if (p?.in !== 'query') continue;
    const raw = query.get(p.name);
    if (raw === null) {
      if (p.required) problems.push(`query: missing required parameter "${p.name}"`);
      continue;
    }
    // Query values are text; numbers are compared as numbers.
    const types = ([] as string[]).concat(deref(api.doc, p.schema)?.type ?? []);
    const numeric = (types.includes('integer') || types.includes('number')) && raw.trim() !== '' && !Number.isNaN(Number(raw));
    problems.push(...check(api, `${param.$ref ?? pointer}/schema`, numeric ? Number(raw) : raw, `query.${p.name}`));
  }
  return problems;
}

/**
 * Validates a request the gateway sends upstream. `body` is the parsed JSON, or the form fields of a
 * multipart body. `documentedOnly` closes a JSON body's top level although the real API may not
 * (our adapters send only fields the contract documents).
 */
export function validateUpstreamRequest(
  apiName: UpstreamApi,
  method: string,
  requestPath: string,
  body: unknown,
  contentType?: string,
  options: { documentedOnly?: boolean } = {},
): string[] {
  const api = load(apiName);
  const { route, query, problem } = findRoute(api, method, requestPath);
  if (!route) return [problem!];
  const problems = checkQuery(api, route, query);
  const requestBody = deref(api.doc, route.operation.requestBody);
  const empty = body === undefined || body === null || body === '';
  if (!requestBody) return empty ? problems : [...problems, `${route.method} ${route.template} takes no request body`];
  if (empty) return requestBody.required ? [...problems, 'body: the request body is required'] : problems;

  const type = mediaType(contentType) ?? 'application/json';
  const accepted = Object.keys(requestBody.content ?? {});
  if (!accepted.includes(type)) return [...problems, `content type ${type} is not accepted by ${route.method} ${route.template} (${accepted.join(', ')})`];
  const bodyPointer = `${route.operation.requestBody.$ref ?? `${route.pointer}/requestBody`}/content/${escapePointer(type)}/schema`;
  const value = type === 'multipart/form-data' ? formFields(body) : body;
  const closed = type === 'application/json' && (options.documentedOnly === true || api.rules.closedRequests.includes(`${route.method} ${route.template}`));
  return [...problems, ...check(api, bodyPointer, value, 'body', closed)];
}

/** Validates an upstream answer (a simulator's, or a recorded one). SSE bodies are given as the raw text. */
export function validateUpstreamResponse(
  apiName: UpstreamApi,
  method: string,
  requestPath: string,
  status: number,
  body: unknown,
  contentType?: string,
): string[] {
  const api = load(apiName);
  const { route, problem } = findRoute(api, method, requestPath);
  if (!route) return [problem!];
  const responses = (route.operation.responses ?? {}) as Json;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (!key) {
    if (status >= 400 && api.rules.errorSchema) return check(api, api.rules.errorSchema, body, 'response');
    return [`${route.method} ${route.template}: status ${status} is not declared (${Object.keys(responses).join(', ')})`];
  }
  const responsePointer = responses[key].$ref ?? `${route.pointer}/responses/${escapePointer(key)}`;
  const response = deref(api.doc, responses[key]);
  const declared = Object.keys(response.content ?? {});
  const empty = body === undefined || body === null || body === '';
  if (declared.length === 0) return empty ? [] : [`${route.method} ${route.template} ${status}: no body is declared`];

  const type = mediaType(contentType) ?? (declared.length === 1 ? declared[0]! : 'application/json');
  if (!declared.includes(type)) return [`${route.method} ${route.template} ${status}: content type ${type} is not declared (${declared.join(', ')})`];
  const media = response.content[type] as Json;
  const schemaPointer = `${responsePointer}/content/${escapePointer(type)}/schema`;
  const schema = deref(api.doc, media.schema) ?? {};

  if (type === 'text/event-stream') {
    if (typeof body !== 'string') return [`response: a ${type} body must be given as text`];
    return validateSseStream(apiName as UpstreamSseApi, body);
  }
  if (schema.format === 'binary') {
    return isBinary(body) || typeof body === 'string' ? [] : [`response: ${type} must be bytes, got ${kindOf(body)}`];
  }
  return check(api, schemaPointer, body, 'response');
}

/** Validates one stream frame's data (parsed JSON, or the raw `data:` text). */
export function validateSseEvent(apiName: UpstreamSseApi, data: unknown): string[] {
  const api = load(apiName);
  if (!api.rules.sseEvent) return [`${apiName} has no event stream`];
  let value = data;
  if (typeof data === 'string') {
    if (api.rules.sseDone && data.trim() === '[DONE]') return [];
    try {
      value = JSON.parse(data);
    } catch {
      return [`event: data is not JSON: ${show(data)}`];
    }
  }
  return check(api, api.rules.sseEvent, value, 'event');
}

/**
 * One message of a Responses WebSocket against OpenAI's published messages
 * (openapi/upstream/openai-responses-websocket.yaml): `client`, a `ResponsesClientEvent`
 * (response.create); `server`, a `ResponsesServerEvent` (a stream event, or `error`).
 */
export function validateWebSocketMessage(direction: 'client' | 'server', data: unknown): string[] {
  const schema = direction === 'client' ? 'ResponsesClientEvent' : 'ResponsesServerEvent';
  return check(load('openai-responses-websocket'), `#/components/schemas/${schema}`, data, 'message');
}

export interface SseFrame {
  event?: string;
  data: string;
}

/** Splits an event stream into frames (`event:` and joined `data:` lines; comments skipped). */
export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const line of `${text}\n\n`.split(/\r?\n/)) {
    if (line === '') {
      if (data.length > 0 || event !== undefined) frames.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
      event = undefined;
      data = [];
    } else if (!line.startsWith(':')) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
  return frames;
}

/** Validates a whole event stream: every frame's data, plus the framing rules of the API. */
export function validateSseStream(apiName: UpstreamSseApi, text: string): string[] {
  const api = load(apiName);
  const problems: string[] = [];
  const frames = parseSse(text);
  if (frames.length === 0) return ['stream: no frames'];
  frames.forEach((frame, i) => {
    const label = `frame ${i}`;
    const isDone = api.rules.sseDone && frame.data.trim() === '[DONE]';
    problems.push(...validateSseEvent(apiName, frame.data).map((p) => p.replace(/^event/, label)));
    if (api.rules.sseNamedEvents && !isDone) {
      let type: unknown;
      try {
        type = (JSON.parse(frame.data) as Json)?.type;
      } catch {
        return;
      }
      if (frame.event === undefined) problems.push(`${label}: no "event:" line (clients drop such frames); expected "event: ${String(type)}"`);
      else if (frame.event !== type) problems.push(`${label}: "event: ${frame.event}" differs from data.type ${show(type)}`);
    }
    if (api.rules.sseDone && isDone && i !== frames.length - 1) problems.push(`${label}: [DONE] before the end of the stream`);
  });
  if (api.rules.sseDone && frames[frames.length - 1]?.data.trim() !== '[DONE]') problems.push('stream: does not end with "data: [DONE]"');
  return problems;
}
