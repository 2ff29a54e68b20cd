// A simulated Veo on Vertex AI, with the Google services it comes with: the OAuth token endpoint
// of a throwaway service account (service-account.ts), `{model}:predictLongRunning` and
// `{model}:fetchPredictOperation` under one project and location, and the Cloud Storage JSON API
// serving the videos the operations wrote to the caller's bucket. Like the real ones: Google's
// error envelopes, a bearer token required everywhere (one this endpoint issued), unknown
// top-level fields refused, Veo 3.1's durations, resolutions and ratios, `generateAudio` required,
// a running operation shown as `{name}` alone, and the MP4 served only with a valid token (Range
// honoured). Prompt switches: `[[sim queued_ms=0 running_ms=0]]` (slow or fast operations),
// `[[sim fail]]` (the operation ends in an error), `[[sim rai]]` (the safety filters remove the
// video), `[[sim no_url]]` (done without a video and without a filter count), `[[sim status=x]]`
// (done without a result), `[[sim reject]]` / `[[sim reject=429]]`, `[[sim bytes=N]]`, `[[sim cut_bytes=N]]`.
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer, type JsonRequest } from '../json-server.ts';
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';
import { textOf } from '../task-directives.ts';
import { googleError, storageError, UNAUTHENTICATED } from './errors.ts';
import { createTokenIssuer, makeServiceAccountKey, type ServiceAccountKeyFile } from './service-account.ts';

export const SANDBOX_PROJECT = 'sandbox-project';
export const SANDBOX_LOCATION = 'us-central1';
const RESOURCE = `/v1/projects/${SANDBOX_PROJECT}/locations/${SANDBOX_LOCATION}`;
const RESPONSE_TYPE = 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse';
const MODELS = new Set(['veo-3.1-generate-001', 'veo-3.1-fast-generate-001', 'veo-3.0-generate-001', 'veo-3.0-fast-generate-001']);
const DURATIONS = [4, 6, 8];
const RESOLUTIONS = ['720p', '1080p'];
const RATIOS = ['16:9', '9:16'];

export interface VertexVeoSimulator extends Simulator {
  /** The service account's key file, as JSON (also `credential`). */
  credential: string;
  serviceAccount: ServiceAccountKeyFile;
  /** Where its Cloud Storage JSON API is (`.../storage/v1`). */
  storageBaseUrl: string;
  tokenUrl: string;
  submissions: Array<Record<string, unknown>>;
  exchanges: Exchange[];
  /** Access tokens issued so far. */
  tokensIssued(): number;
  /** Forget every issued token (as if revoked). */
  revokeTokens(): void;
  /** The MP4 an operation wrote, as a download of it should receive it. */
  videoBytes(operationName: string): Buffer;
  /** A key file of another account of the same name (its signature does not verify here). */
  foreignCredential(): string;
}

interface Operation {
  name: string;
  task: SimTask;
  /** Where its video goes (`storageUri`); undefined: returned inline. */
  storageUri: string | undefined;
}

const unknownNames = (body: Record<string, unknown>, known: string[]) => Object.keys(body).filter((k) => !known.includes(k));
const unknownName = (name: string) => googleError(400, `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`);

function invalidPrediction(model: string, body: Record<string, unknown>): JsonAnswer | undefined {
  const [extra] = unknownNames(body, ['instances', 'parameters']);
  if (extra) return unknownName(extra);
  const instances = Array.isArray(body.instances) ? (body.instances as Array<Record<string, unknown>>) : [];
  if (instances.length !== 1) return googleError(400, 'Exactly one instance is supported for video generation.');
  if (typeof instances[0]?.prompt !== 'string' || !instances[0].prompt.trim()) return googleError(400, 'The prompt is required for text to video.');
  const p = (body.parameters ?? {}) as Record<string, unknown>;
  if (p.durationSeconds !== undefined && !DURATIONS.includes(p.durationSeconds as number))
    return googleError(
      400,
      `Unsupported output video duration ${String(p.durationSeconds)} seconds, supported durations are [8,4,6] for feature text_to_video.`,
    );
  if (p.resolution !== undefined && !RESOLUTIONS.includes(p.resolution as string)) return googleError(400, `Unsupported resolution: ${String(p.resolution)}.`);
  if (p.aspectRatio !== undefined && !RATIOS.includes(p.aspectRatio as string)) return googleError(400, `Unsupported aspect ratio: ${String(p.aspectRatio)}.`);
  if (model.startsWith('veo-3') && typeof p.generateAudio !== 'boolean') return googleError(400, 'generateAudio is required for this model.');
  if (p.sampleCount !== undefined && !(Number.isInteger(p.sampleCount) && (p.sampleCount as number) >= 1 && (p.sampleCount as number) <= 4))
    return googleError(400, 'sampleCount must be between 1 and 4.');
  if (p.storageUri !== undefined && !/^gs:\/\/[^/]+/.test(String(p.storageUri))) return googleError(400, 'storageUri must be a gs:// URI.');
  return undefined;
}

export async function startVertexVeoSimulator(options: SimulatorOptions = {}): Promise<VertexVeoSimulator> {
  const book = createTaskBook({ ...options, idPrefix: '' });
  const operations = new Map<string, Operation>(); // by name
  const objects = new Map<string, Operation>(); // by "bucket/object"
  const submissions: Array<Record<string, unknown>> = [];
  // The key's token_uri names this simulator once it listens.
  const account = makeServiceAccountKey(SANDBOX_PROJECT, 'veo-sandbox', '');
  const issuer = createTokenIssuer(account);

  const objectOf = (op: Operation) => {
    const uri = op.storageUri!;
    return {
      uri: `${uri}${uri.endsWith('/') ? '' : '/'}${op.task.id}/sample_0.mp4`,
      key: `${uri.slice(5)}${uri.endsWith('/') ? '' : '/'}${op.task.id}/sample_0.mp4`,
    };
  };
  const directive = (op: Operation, name: string) => new RegExp(`\\[\\[sim [^\\]]*\\b${name}\\b`).test(textOf(op.task.body.instances));
  /** Whether the operation's video was written to the bucket (and so can be read there). */
  const delivered = (op: Operation) => book.phase(op.task) === 'succeeded' && op.storageUri !== undefined && !directive(op, 'rai') && !op.task.behaviour.noUrl;

  function view(op: Operation): Record<string, unknown> {
    const phase = book.phase(op.task);
    if (phase === 'queued' || phase === 'running') return { name: op.name }; // proto3 JSON omits done: false
    if (phase === 'failed')
      return {
        name: op.name,
        done: true,
        error: {
          code: 3,
          message:
            "The prompt could not be submitted. This prompt contains sensitive words that violate Google's Responsible AI practices. Support codes: 58061214",
        },
      };
    if (phase !== 'succeeded') return { name: op.name, done: true }; // [[sim status=x]]: neither error nor response
    if (directive(op, 'rai'))
      return {
        name: op.name,
        done: true,
        response: {
          '@type': RESPONSE_TYPE,
          raiMediaFilteredCount: 1,
          raiMediaFilteredReasons: ['The video could not be generated because it might violate our policies. Support codes: 29310472'],
        },
      };
    if (op.task.behaviour.noUrl) return { name: op.name, done: true, response: { '@type': RESPONSE_TYPE } };
    const video = op.storageUri
      ? { gcsUri: objectOf(op).uri, mimeType: 'video/mp4' }
      : { bytesBase64Encoded: assetBytes(op.task.asset, 1024).toString('base64'), mimeType: 'video/mp4' };
    return { name: op.name, done: true, response: { '@type': RESPONSE_TYPE, videos: [video] } };
  }

  function predict(model: string, body: Record<string, unknown>): JsonAnswer {
    if (!MODELS.has(model))
      return googleError(
        404,
        `Publisher Model \`projects/${SANDBOX_PROJECT}/locations/${SANDBOX_LOCATION}/publishers/google/models/${model}\` was not found or your project does not have access to it.`,
      );
    const problem = invalidPrediction(model, body);
    if (problem) return problem;
    const task = book.add(body, body.instances, { model });
    if (task.behaviour.reject) {
      book.remove(task.id);
      return task.behaviour.reject === 429
        ? googleError(
            429,
            `Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model ${model}. Please submit a quota increase request.`,
          )
        : googleError(task.behaviour.reject, 'The prompt could not be submitted. Support codes: 15236754');
    }
    submissions.push(body);
    return { status: 200, body: { name: register(task).name } };
  }

  /** A task as the long-running operation Vertex names it by, and its object in the bucket. */
  function register(task: SimTask): Operation {
    const storageUri = (task.body.parameters as Record<string, unknown> | undefined)?.storageUri as string | undefined;
    const op: Operation = {
      name: `projects/${SANDBOX_PROJECT}/locations/${SANDBOX_LOCATION}/publishers/google/models/${String(task.extra?.model)}/operations/${task.id}`,
      task,
      storageUri,
    };
    operations.set(op.name, op);
    if (storageUri) objects.set(objectOf(op).key, op);
    return op;
  }
  for (const task of book.tasks.values()) register(task); // kept from before a restart

  function fetchOperation(model: string, body: Record<string, unknown>): JsonAnswer {
    const [extra] = unknownNames(body, ['operationName']);
    if (extra) return unknownName(extra);
    if (typeof body.operationName !== 'string') return googleError(400, 'operationName is required.');
    const op = operations.get(body.operationName);
    if (!op) return googleError(404, `Operation ${body.operationName} was not found.`);
    if (!op.name.includes(`/models/${model}/operations/`)) return googleError(400, 'The operation does not belong to this model.');
    return { status: 200, body: view(op) };
  }

  function storage(req: JsonRequest, bucket: string, object: string): JsonAnswer {
    if (!issuer.authorized(req.headers.authorization))
      return storageError(401, 'required', 'Anonymous caller does not have storage.objects.get access to the Google Cloud Storage object.', 'Authorization');
    const op = objects.get(`${bucket}/${object}`);
    if (!op || !delivered(op)) return storageError(404, 'notFound', `No such object: ${bucket}/${object}`);
    const size = book.bytes(op.task);
    if (req.query.get('alt') === 'media') return assetAnswer(op.task.asset, size, 'video/mp4', req.headers.range, op.task.behaviour.cutBytes);
    return { status: 200, body: { kind: 'storage#object', id: `${bucket}/${object}`, name: object, bucket, contentType: 'video/mp4', size: String(size) } };
  }

  const server = await serveJson((req) => {
    if (req.method === 'POST' && req.path === '/token') return issuer.exchange(req.body);
    const gcs = /^\/storage\/v1\/b\/([^/]+)\/o\/([^/]+)$/.exec(req.path);
    if (gcs && req.method === 'GET') return storage(req, decodeURIComponent(gcs[1]!), decodeURIComponent(gcs[2]!));
    const call = req.path.startsWith(`${RESOURCE}/`)
      ? /^\/publishers\/google\/models\/([^/:]+):(predictLongRunning|fetchPredictOperation)$/.exec(req.path.slice(RESOURCE.length))
      : null;
    if (!call || req.method !== 'POST') return googleError(404, 'The requested URL was not found on this server.');
    if (!issuer.authorized(req.headers.authorization)) return UNAUTHENTICATED;
    return call[2] === 'predictLongRunning' ? predict(call[1]!, req.body) : fetchOperation(call[1]!, req.body);
  });
  const origin = server.baseUrl;
  account.file.token_uri = `${origin}/token`;
  const credential = JSON.stringify(account.file);
  return {
    ...server,
    baseUrl: `${origin}${RESOURCE}`,
    credential,
    serviceAccount: account.file,
    storageBaseUrl: `${origin}/storage/v1`,
    tokenUrl: `${origin}/token`,
    submissions,
    tokensIssued: () => issuer.issued(),
    revokeTokens: () => issuer.revokeAll(),
    videoBytes: (name) => {
      const op = operations.get(name)!;
      return assetBytes(op.task.asset, book.bytes(op.task));
    },
    foreignCredential: () =>
      JSON.stringify({
        ...makeServiceAccountKey(SANDBOX_PROJECT, 'veo-sandbox', `${origin}/token`, { fresh: true }).file,
        private_key_id: account.file.private_key_id,
      }),
  };
}
