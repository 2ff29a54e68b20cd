import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { anthropicMessages } from '../../../src/domain/messages/protocol.ts';
import { overrunLimit, relayStream } from '../../../src/domain/passthrough/relay.ts';
import type { Sink } from '../../../src/domain/sink.ts';

/** A client that keeps what it gets, and can be slow (back-pressure) or leave. */
function fakeSink(options: { slowMs?: number; slowEvery?: number } = {}) {
  const abort = new AbortController();
  const received: string[] = [];
  let ended = false;
  const sink: Sink & { received: string[]; leave(): void } = {
    received,
    start: () => undefined,
    send: () => undefined,
    write: (chunk) => {
      received.push(String(chunk));
      const slow = options.slowMs && (!options.slowEvery || received.length % options.slowEvery === 0);
      return slow ? new Promise<void>((r) => setTimeout(r, options.slowMs)) : undefined;
    },
    end: (chunk) => {
      if (chunk) received.push(String(chunk));
      ended = true;
    },
    get started() {
      return true;
    },
    get closed() {
      return ended || abort.signal.aborted;
    },
    signal: abort.signal,
    leave: () => abort.abort(),
    abort: () => abort.abort(),
  };
  return sink;
}

const request = {
  caller: { customerId: 'c', keyId: 'k', allowedModels: null, limited: false },
  requestId: 'r',
  endpoint: 'e',
  body: {},
  rawBody: Buffer.from('{}'),
  headers: {},
};
const frame = (type: string, data: Record<string, unknown> = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const delta = (text: string) => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });

function relay(body: PassThrough, sink: ReturnType<typeof fakeSink>, options: { idleMs?: number; maxOutputTokens?: number; shutdown?: AbortSignal } = {}) {
  const inspected = { stream: true, inputTokens: 5, maxOutputTokens: options.maxOutputTokens ?? 1000 };
  const reader = anthropicMessages.reader(request, inspected, 'pub', 'up');
  let progress = 0;
  const done = relayStream({
    sink,
    upstream: { status: 200, headers: {}, body, upstreamRequestId: undefined },
    reader,
    protocol: anthropicMessages,
    idleMs: options.idleMs ?? 5000,
    maxOutputTokens: inspected.maxOutputTokens,
    shutdown: options.shutdown ?? new AbortController().signal,
    onProgress: () => progress++,
    baseHeaders: {},
  });
  return { done, reader, progress: () => progress };
}

describe('the SSE relay', () => {
  it('relays every frame in order and ends complete at message_stop', async () => {
    const body = new PassThrough();
    const sink = fakeSink();
    const { done } = relay(body, sink);
    const frames = [
      frame('message_start', { message: { model: 'up', usage: { input_tokens: 5, output_tokens: 1 } } }),
      delta('Hi'),
      frame('message_delta', { usage: { output_tokens: 2 } }),
      frame('message_stop'),
    ];
    for (const f of frames) body.write(f);
    body.end();
    expect(await done).to.deep.include({ ending: 'complete' });
    expect(sink.received.join('')).to.equal(frames.join('').replace('"model":"up"', '"model":"pub"'));
  });

  it('stops reading the provider while a slow client drains, and loses nothing', async () => {
    const body = new PassThrough({ highWaterMark: 16 });
    const sink = fakeSink({ slowMs: 5 });
    const { done } = relay(body, sink);
    for (let i = 0; i < 50; i++) body.write(delta(`w${i} `));
    body.write(frame('message_stop'));
    body.end();
    await done;
    expect(sink.received.join('').match(/text_delta/g)).to.have.length(50);
  });

  it('keeps the order when only some writes wait for the client', async () => {
    const body = new PassThrough({ highWaterMark: 16 });
    const sink = fakeSink({ slowMs: 3, slowEvery: 4 });
    const { done } = relay(body, sink);
    for (let i = 0; i < 60; i++) {
      body.write(delta(`w${i} `));
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    body.write(frame('message_stop'));
    body.end();
    expect(await done).to.deep.include({ ending: 'complete' });
    const words = sink.received.join('').match(/w\d+ /g);
    expect(words).to.deep.equal(Array.from({ length: 60 }, (_, i) => `w${i} `));
  });

  it('ends with an error event when the provider goes silent, and when it cuts the stream', async () => {
    const silent = new PassThrough();
    const sink = fakeSink();
    const pending = relay(silent, sink, { idleMs: 50 });
    silent.write(delta('a'));
    expect(await pending.done).to.deep.include({ ending: 'idle_timeout' });
    expect(sink.received.at(-1)).to.match(/^event: error\ndata: .*timeout_error/);

    const cut = new PassThrough();
    const sink2 = fakeSink();
    const pending2 = relay(cut, sink2);
    cut.write(delta('a'));
    cut.end();
    expect(await pending2.done).to.deep.include({ ending: 'upstream_cut' });
    expect(sink2.received.at(-1)).to.match(/^event: error\ndata: .*ended the stream before/);
  });

  it('cuts a provider that streams past the output bound', async () => {
    const body = new PassThrough();
    const sink = fakeSink();
    const { done } = relay(body, sink, { maxOutputTokens: 10 });
    body.write(delta('x'.repeat(4 * (overrunLimit(10) + 1))));
    expect(await done).to.deep.include({ ending: 'overrun' });
    expect(body.destroyed).to.equal(true);
  });

  it('stops at once when the client leaves or the process cuts open streams at shutdown', async () => {
    const body = new PassThrough();
    const sink = fakeSink();
    const { done, progress } = relay(body, sink);
    body.write(delta('a'));
    await new Promise((r) => setTimeout(r, 10));
    sink.leave();
    expect(await done).to.deep.include({ ending: 'client_gone' });
    expect(body.destroyed).to.equal(true);
    expect(progress()).to.equal(1); // the first byte was checkpointed

    const shutdown = new AbortController();
    const body2 = new PassThrough();
    const sink2 = fakeSink();
    const pending = relay(body2, sink2, { shutdown: shutdown.signal });
    body2.write(delta('a'));
    await new Promise((r) => setTimeout(r, 10));
    shutdown.abort();
    expect(await pending.done).to.deep.include({ ending: 'shutdown' });
    expect(sink2.received.at(-1)).to.match(/overloaded_error.*restarting/);
  });
});
