import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { LineCounter, isNode, parseDocument, type Document, type YAMLError } from 'yaml';
import type { ErrorObject } from 'ajv';
import { GEMINI_PROTOCOLS, VIDEO_PROTOCOLS, aliasName, isVideoPrice, type Catalogue } from './types.ts';
import { patternErrors } from './pattern-checks.ts';
import { providerProblems } from './provider-checks.ts';
import { costProblems, tierProblems } from './tier-checks.ts';
import { isVideoProtocol, videoSpecProblems } from './video-protocols.ts';
// Imported, not read from the source tree: the build emits it beside load.js, so dist/ is enough.
import schema from './catalogue.schema.json' with { type: 'json' };

const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile<Catalogue>(schema);

export type ParseResult = { ok: true; catalogue: Catalogue } | { ok: false; errors: string[] };

/** YAML syntax, then the JSON Schema, then the cross-references a schema cannot express. */
export function parseCatalogue(text: string, source: string): ParseResult {
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines });
  if (document.errors.length > 0) return { ok: false, errors: document.errors.map((e) => yamlError(e, source)) };
  const data: unknown = document.toJS();
  if (!validate(data)) return { ok: false, errors: schemaErrors(validate.errors ?? [], source) };
  const errors = [...semanticErrors(data), ...aliasErrors(data, document, lines), ...patternErrors(data, document, lines)].map((e) => `${source}: ${e}`);
  return errors.length ? { ok: false, errors } : { ok: true, catalogue: data };
}

function yamlError(error: YAMLError, source: string): string {
  const position = error.linePos?.[0];
  // prettyErrors (needed for linePos) appends " at line L, column C:" and a code frame.
  const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return `${source}:${position ? ` line ${position.line}, column ${position.col}:` : ''} YAML syntax error: ${message}`;
}

// An unquoted `3.00` arrives as the number 3: say how to fix it rather than just "must be string".
const PRICE_PATH = /\/price\/(?:(?:tiers\/\d+\/)?[a-z_0-9]+_per_mtok|per_second\/[^/]+)$/;

function schemaErrors(errors: ErrorObject[], source: string): string[] {
  // if/then/else wrappers repeat what the inner error already says.
  const useful = errors.filter((e) => e.keyword !== 'if');
  return [
    ...new Set(
      useful.map((e) => {
        const where = e.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(root)';
        const detail =
          e.keyword === 'additionalProperties'
            ? `unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`
            : e.keyword === 'false schema'
              ? 'is not allowed here (sandbox providers get their URL and credential from the simulator)'
              : e.keyword === 'enum'
                ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
                : e.keyword === 'type' && PRICE_PATH.test(e.instancePath)
                  ? 'must be a quoted decimal string such as "3.00" (YAML reads unquoted numbers as floating point)'
                  : (e.message ?? 'is invalid');
        return `${source}: ${where} ${detail}`;
      }),
    ),
  ];
}

/**
 * An alias never shadows a model's id. It may name several models (a real one and its sandbox
 * stand-in): the first in the file that an enabled provider serves answers it (store.ts). Each
 * error names the line of the alias.
 */
function aliasErrors(catalogue: Catalogue, document: Document, lines: LineCounter): string[] {
  const errors: string[] = [];
  const ids = new Map(catalogue.models.map((m, i) => [m.id, i]));
  catalogue.models.forEach((model, i) => {
    (model.aliases ?? []).forEach((alias, a) => {
      const name = aliasName(alias);
      const owner = ids.get(name);
      if (owner === undefined) return;
      const node = document.getIn(['models', i, 'aliases', a], true);
      const at = isNode(node) && node.range ? `line ${lines.linePos(node.range[0]).line}: ` : '';
      errors.push(`${at}models.${i} (${model.id}).aliases.${a}: "${name}" is the id of models.${owner}; an alias may not shadow a model`);
    });
  });
  return errors;
}

function duplicates(ids: string[]): string[] {
  return ids.filter((id, i) => ids.indexOf(id) !== i);
}

function semanticErrors(catalogue: Catalogue): string[] {
  const errors: string[] = [];
  for (const id of duplicates(catalogue.providers.map((p) => p.id))) errors.push(`providers: duplicate id "${id}"`);
  for (const id of duplicates(catalogue.models.map((m) => m.id))) errors.push(`models: duplicate id "${id}"`);
  catalogue.providers.forEach((provider, i) => errors.push(...providerProblems(provider, i)));
  catalogue.providers.forEach((provider, i) => {
    // The gateway's queue fronts task providers only: a request-response call has nothing to wait in.
    for (const field of ['max_concurrent_tasks', 'max_queue_wait_seconds'] as const)
      if (provider[field] !== undefined && !VIDEO_PROTOCOLS.has(provider.protocol))
        errors.push(`providers.${i} (${provider.id}).${field}: only video providers queue tasks, ${provider.protocol} does not`);
  });
  const providers = new Map(catalogue.providers.map((p) => [p.id, p]));
  catalogue.models.forEach((model, i) => {
    const where = `models.${i} (${model.id})`;
    model.routes.forEach((route, r) => {
      const provider = providers.get(route.provider);
      if (!provider) return errors.push(`${where}.routes.${r}: unknown provider "${route.provider}"`);
      const video = VIDEO_PROTOCOLS.has(provider.protocol);
      if (model.group === 'video' && !video)
        errors.push(`${where}.routes.${r}: a video model needs a video protocol, "${route.provider}" speaks ${provider.protocol}`);
      if (model.group !== 'video' && video) errors.push(`${where}.routes.${r}: a ${model.group} model cannot use the video protocol ${provider.protocol}`);
      if (model.group === 'messages' && provider.protocol !== 'anthropic') errors.push(`${where}.routes.${r}: a messages model needs an anthropic provider`);
      if (model.group === 'chat' && provider.protocol !== 'openai-chat' && !video)
        errors.push(`${where}.routes.${r}: a chat model needs an openai-chat provider`);
      if (model.group === 'responses' && provider.protocol !== 'openai-responses' && !video)
        errors.push(`${where}.routes.${r}: a responses model needs an openai-responses provider`);
      if (model.group === 'gemini' && !GEMINI_PROTOCOLS.has(provider.protocol) && !video)
        errors.push(`${where}.routes.${r}: a gemini model needs a gemini or vertex-gemini provider`);
    });
    const replacement = model.retired?.replacement;
    if (replacement !== undefined) {
      const other = catalogue.models.find((m) => m.id === replacement);
      if (!other) errors.push(`${where}.retired.replacement: unknown model "${replacement}"`);
      else if (other.retired) errors.push(`${where}.retired.replacement: "${replacement}" is retired too`);
      else if (other.group !== model.group) errors.push(`${where}.retired.replacement: "${replacement}" is a ${other.group} model, not ${model.group}`);
    }
    const quota = model.free_quota;
    if (quota) {
      const fits = quota.unit === 'requests' || (quota.unit === 'seconds' ? model.group === 'video' : model.group !== 'video');
      if (!fits) errors.push(`${where}.free_quota: unit "${quota.unit}" does not fit a ${model.group} model`);
    }
    if (!isVideoPrice(model.price)) errors.push(...tierProblems(model, where));
    errors.push(...costProblems(model, where));
    if (model.video && isVideoPrice(model.price) && model.video.reference_images && !model.video.content_types.includes('image_url')) {
      errors.push(`${where}.video: reference_images needs image_url among content_types`);
    }
    if (model.group === 'video' && model.video && isVideoPrice(model.price)) {
      // One protocol per video model: what it accepts is validated once, for that protocol.
      const protocols = [...new Set(model.routes.map((r) => providers.get(r.provider)?.protocol).filter((p) => p !== undefined))];
      if (protocols.length > 1) errors.push(`${where}.routes: a video model's routes must speak one protocol (${protocols.join(', ')})`);
      const [protocol] = protocols;
      if (protocols.length === 1 && isVideoProtocol(protocol!)) {
        for (const problem of videoSpecProblems(protocol, model.video, Object.keys(model.price.per_second))) errors.push(`${where}.${problem}`);
      }
    }
  });
  return errors;
}
