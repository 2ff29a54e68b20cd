// One POST of a webhook to its receiver, at a bounded cost whatever the receiver does: the status
// line and at most ANSWER_LOG_BYTES of its answer are read (for the delivery log), then the
// connection is dropped; connecting, the head and those bytes share one hard deadline. A receiver
// answering an endless body, or trickling it, costs a few kilobytes and `timeoutMs` at most.
import { StringDecoder } from 'node:string_decoder';
import got from 'got';
import type { WebhookEgress } from './egress.ts';

/** What of a receiver's answer is read and logged; the rest is never read. */
export const ANSWER_LOG_BYTES = 1024;
/** Connect, head and the logged bytes of the answer, all together (got's `request` timeout). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** One attempt: the status the receiver answered (with the start of its body), or why there was none. */
export interface AttemptOutcome {
  status?: number;
  /** The first ANSWER_LOG_BYTES of the answer as text (whole characters; NUL made U+FFFD). */
  body?: string;
  error?: string;
}

const loggable = (bytes: Buffer): string => new StringDecoder('utf8').write(bytes).replace(/\u0000/g, '\ufffd');

export async function callReceiver(
  egress: WebhookEgress,
  request: { url: string; body: string; headers: Record<string, string>; timeoutMs?: number },
): Promise<AttemptOutcome> {
  const refusal = egress.refusal(request.url);
  if (refusal) return { error: refusal };
  const stream = got.stream.post(request.url, {
    body: request.body,
    headers: request.headers,
    dnsLookup: egress.lookup,
    timeout: { request: request.timeoutMs ?? DEFAULT_TIMEOUT_MS },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    decompress: false, // the bytes as sent: no inflating of what is never read
  });
  return new Promise<AttemptOutcome>((resolve) => {
    let status: number | undefined;
    const taken: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      stream.destroy(); // drops the connection: the rest of the answer is never read
      if (status !== undefined) return resolve({ status, body: loggable(Buffer.concat(taken)) });
      const code = (error as { code?: string } | undefined)?.code;
      resolve({ error: code === 'ERR_EGRESS_REFUSED' ? 'refused: the URL leads into an internal network' : (code ?? 'request failed') });
    };
    stream.on('response', (response: { statusCode: number }) => {
      status = response.statusCode;
    });
    stream.on('data', (chunk: Buffer) => {
      const room = ANSWER_LOG_BYTES - size;
      if (room > 0) {
        taken.push(Buffer.from(chunk.subarray(0, room)));
        size += Math.min(room, chunk.length);
      }
      if (size >= ANSWER_LOG_BYTES) finish();
    });
    stream.on('end', () => finish());
    // After the status line, an error (the deadline, a reset) only ends the body: the answer stands.
    stream.on('error', finish);
  });
}
