import { expect } from 'chai';
import { MAX_FRAME_CHARS, parseFrame, SseFramer } from '../../../src/domain/passthrough/sse.ts';

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('SSE framing', () => {
  it('cuts whole frames however the bytes were split: mid-line, mid-JSON, mid-character', () => {
    const text =
      frame('content_block_delta', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'héllo 你好 🌍' } }) + frame('ping', { type: 'ping' });
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const framer = new SseFramer();
      const frames = [...(framer.push(bytes.subarray(0, cut)) as []), ...(framer.push(bytes.subarray(cut)) as [])];
      expect(
        frames.map((f: { event?: string }) => f.event),
        `cut at ${cut}`,
      ).to.deep.equal(['content_block_delta', 'ping']);
      expect(frames.map((f: { raw: string }) => f.raw).join('')).to.equal(text);
    }
  });

  it('keeps each frame exactly as received, comments and unknown fields included', () => {
    const raw = ': keep-alive\nevent: future_event\nid: 7\ndata: {"type":"future_event"}\n\n';
    const [parsed] = new SseFramer().push(Buffer.from(raw)) as ReturnType<typeof parseFrame>[];
    expect(parsed).to.deep.equal({ raw, event: 'future_event', data: '{"type":"future_event"}' });
  });

  it('reads CRLF and CR line endings, joins multi-line data, and frames without an event line', () => {
    expect(parseFrame('event: a\r\ndata: 1\r\ndata: 2\r\n\r\n')).to.include({ event: 'a', data: '1\n2' });
    expect(parseFrame('data: [DONE]\n\n')).to.include({ event: undefined, data: '[DONE]' });
    const framer = new SseFramer();
    expect(framer.push(Buffer.from('data: a\r\n\r\ndata: b\r\n'))).to.have.length(1);
    expect(framer.push(Buffer.from('\r\n'))).to.have.length(1);
  });

  it('keeps what follows the last complete frame for the remainder', () => {
    const framer = new SseFramer();
    framer.push(Buffer.from('data: 1\n\ndata: {"half'));
    expect(framer.remainder()).to.equal('data: {"half');
  });

  it('refuses to buffer a frame that never ends past the limit', () => {
    const framer = new SseFramer();
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let result: unknown = [];
    for (let i = 0; i * chunk.length <= MAX_FRAME_CHARS && result !== 'oversized'; i++) result = framer.push(chunk);
    expect(result).to.equal('oversized');
  });
});
