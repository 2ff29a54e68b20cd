// Veo on Vertex AI: POST {model}:predictLongRunning starts a task and answers a long-running
// operation, whose name (projects/.../publishers/google/models/{model}/operations/{id}) is the
// upstream id: it names the model the operation is fetched at, POST {model}:fetchPredictOperation.
// The base URL is a location's resource prefix (.../v1/projects/{project}/locations/{location}).
// Auth is the service account's access token (auth.ts). The videos are written to the operator's
// bucket (the provider's storage_uri, always sent) and streamed to their creator from there
// through the Cloud Storage JSON API with the same token; nothing is stored by the gateway. Veo
// reports no usage, so a delivered video is billed as requested (operation.ts). There is no cancel.
import { asString, callJson } from '../json-http.ts';
import type { ResolvedProvider } from '../../catalogue/types.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoAssetLocation } from '../video.ts';
import { accessToken } from './auth.ts';
import { modelOfOperation, objectMediaUrl, parseGcsUri, parseOperation, storedVideos } from './operation.ts';

const GOOGLE_STORAGE_API = 'https://storage.googleapis.com/storage/v1';

const modelPath = (model: string, method: string) => `/publishers/google/models/${encodeURIComponent(model)}:${method}`;

/** One video of the requested seconds, resolution and ratio; sound only when asked (the Veo 3 models require the switch). */
export function veoBody(request: NormalisedVideoRequest, storageUri: string): Record<string, unknown> {
  const prompt = request.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  return {
    instances: [{ prompt }],
    parameters: {
      durationSeconds: request.seconds,
      resolution: request.resolution,
      ...(request.ratio ? { aspectRatio: request.ratio } : {}),
      generateAudio: request.generate_audio === true,
      sampleCount: 1,
      storageUri,
    },
  };
}

/**
 * Vertex's 429 (RESOURCE_EXHAUSTED) is the project's quota for the model, shared by everyone
 * calling with the project's accounts: the account refusal, in the OpenAI shape the queue reads.
 */
function accountRefusal(error: UpstreamError): UpstreamError {
  if (error.status !== 429) return error;
  const body = JSON.stringify({
    error: { message: "The provider account's quota for this model is used up for now.", type: 'rate_limit_error', code: 'provider_concurrency' },
  });
  return new UpstreamError('status', true, 429, body, error.upstreamRequestId, error.headers);
}

/** The operation as Vertex answers it (bucket locations included). */
async function fetchOperation(provider: ResolvedProvider, name: string): Promise<Record<string, unknown> | UpstreamError> {
  const model = modelOfOperation(name);
  if (!model) return new UpstreamError('protocol', false);
  const token = await accessToken(provider);
  if (token instanceof UpstreamError) return token;
  const answer = await callJson(provider, 'POST', modelPath(model, 'fetchPredictOperation'), { operationName: name }, { bearer: token, idempotent: true });
  return answer instanceof UpstreamError ? answer : answer.body;
}

/** The Cloud Storage API the provider's videos are read through: configured, the sandbox's own, or Google's. */
function storageApi(provider: ResolvedProvider): string {
  if (provider.storage?.apiBaseUrl) return provider.storage.apiBaseUrl;
  return provider.sandbox && provider.baseUrl ? `${new URL(provider.baseUrl).origin}/storage/v1` : GOOGLE_STORAGE_API;
}

export const vertexVeoAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    // The catalogue refuses a vertex-veo provider without storage_uri; never ask for inline output.
    if (!provider.storage) return new UpstreamError('status', false, 503);
    const token = await accessToken(provider);
    if (token instanceof UpstreamError) return token;
    const answer = await callJson(provider, 'POST', modelPath(upstreamModel, 'predictLongRunning'), veoBody(request, provider.storage.uri), { bearer: token });
    if (answer instanceof UpstreamError) return accountRefusal(answer);
    const name = asString(answer.body.name);
    return name && modelOfOperation(name) ? { upstreamId: name } : new UpstreamError('protocol', false, answer.status);
  },
  async poll(provider, upstreamId) {
    const operation = await fetchOperation(provider, upstreamId);
    return operation instanceof UpstreamError ? operation : parseOperation(operation);
  },
  // Vertex offers no cancel of a Veo prediction; the catalogue marks its plans not cancellable.
  cancel: async () => 'refused',
  variants: ['video'],
  async locate(provider, upstreamId): Promise<VideoAssetLocation | 'gone' | UpstreamError> {
    // The operation names the object afresh on each download; an operation Vertex no longer
    // keeps is a 404. Only objects in the provider's own bucket are fetched with its token.
    const operation = await fetchOperation(provider, upstreamId);
    if (operation instanceof UpstreamError) return operation.status === 404 ? 'gone' : operation;
    if (parseOperation(operation).status !== 'completed') return 'gone';
    const [uri] = storedVideos(operation);
    const object = uri ? parseGcsUri(uri) : undefined;
    if (!object) return 'gone';
    if (!provider.storage || object.bucket !== /^gs:\/\/([^/]+)/.exec(provider.storage.uri)?.[1]) return new UpstreamError('protocol', false);
    const token = await accessToken(provider);
    if (token instanceof UpstreamError) return token;
    return { url: objectMediaUrl(storageApi(provider), object.bucket, object.object), withCredential: false, bearer: token };
  },
};
