// A Vertex long-running operation, read for a Veo task. While it runs it is `{name}` (proto3 JSON
// leaves out `done: false`); once done it has either `error` (a google.rpc.Status) or `response`
// (a GenerateVideoResponse: `videos[]` in the operator's bucket, `raiMediaFilteredCount` and
// `raiMediaFilteredReasons` when the safety filters removed any). No usage is reported.
import { asRecord, asString } from '../json-http.ts';
import type { VideoPoll } from '../video.ts';

/** google.rpc.Code names by number: an operation error's `code` as the customer sees it. */
const CODES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

const OPERATION_NAME = /^projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/]+)\/operations\/[^/]+$/;

/** The publisher model an operation belongs to: it is fetched at that model's `:fetchPredictOperation`. */
export const modelOfOperation = (name: string): string | undefined => OPERATION_NAME.exec(name)?.[1];

const videosOf = (operation: Record<string, unknown>): Array<Record<string, unknown>> => {
  const videos = asRecord(operation.response).videos;
  return Array.isArray(videos) ? videos.map(asRecord) : [];
};

/** The `gs://` URIs of the videos the operation wrote to the bucket. */
export const storedVideos = (operation: Record<string, unknown>): string[] => videosOf(operation).flatMap((v) => asString(v.gcsUri) ?? []);

/**
 * The operation as the task's `result` shows it: the bucket locations (the operator's storage,
 * reached through GET /v1/videos/{id}/content) and inline bytes are left out.
 */
export function customerView(operation: Record<string, unknown>): Record<string, unknown> {
  if (operation.response === undefined) return operation;
  const response = asRecord(operation.response);
  const videos = Array.isArray(response.videos) ? videosOf(operation).map(({ gcsUri: _uri, bytesBase64Encoded: _bytes, ...rest }) => rest) : undefined;
  return { ...operation, response: { ...response, ...(videos ? { videos } : {}) } };
}

function filteredMessage(response: Record<string, unknown>): string {
  const reasons = Array.isArray(response.raiMediaFilteredReasons) ? response.raiMediaFilteredReasons.filter((r) => typeof r === 'string') : [];
  return `The provider's safety filters removed the video${reasons.length ? `: ${reasons.join(' ')}` : '.'}`;
}

export function parseOperation(operation: Record<string, unknown>): VideoPoll {
  const poll = { progress: null, deliveredSeconds: undefined, deliveredResolution: undefined, assetUrl: undefined, expiresAt: null, error: undefined };
  const raw = customerView(operation);
  if (operation.done !== true) return { ...poll, status: 'in_progress', upstreamStatus: 'running', raw };
  if (operation.error !== undefined) {
    const error = asRecord(operation.error);
    const code = typeof error.code === 'number' ? (CODES[error.code] ?? String(error.code)) : 'UNKNOWN';
    return { ...poll, status: 'failed', upstreamStatus: 'failed', error: { code, message: String(error.message ?? '') }, raw };
  }
  if (operation.response === undefined) return { ...poll, status: 'unknown', upstreamStatus: 'done_without_result', raw };
  const response = asRecord(operation.response);
  // Filtered media is a failure whatever else the answer holds: the hold is released.
  if (typeof response.raiMediaFilteredCount === 'number' && response.raiMediaFilteredCount > 0)
    return { ...poll, status: 'failed', upstreamStatus: 'filtered', error: { code: 'content_filtered', message: filteredMessage(response) }, raw };
  // Done with a video in the bucket: delivered, and billed as requested (Vertex reports no usage).
  // Done with none and no filter count (or only inline bytes, never asked for): a success the
  // gateway cannot confirm, which the video domain sends to review (no asset).
  return {
    ...poll,
    status: 'completed',
    upstreamStatus: 'succeeded',
    progress: 100,
    deliveryConfirmed: storedVideos(operation).length > 0,
    billedAsRequested: true,
    raw,
  };
}

/** `gs://bucket/a/b.mp4` -> bucket and object name; undefined for anything else. */
export function parseGcsUri(uri: string): { bucket: string; object: string } | undefined {
  const match = /^gs:\/\/([^/]+)\/(.*)$/.exec(uri);
  return match ? { bucket: match[1]!, object: match[2]! } : undefined;
}

/** The Cloud Storage JSON API URL of an object's bytes (objects.get, alt=media); the name is one encoded segment. */
export const objectMediaUrl = (apiBaseUrl: string, bucket: string, object: string): string =>
  `${apiBaseUrl.replace(/\/+$/, '')}/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(object)}?alt=media`;
