import { StringDecoder } from 'node:string_decoder';

export interface SseFrame {
  /** The frame exactly as received, including its terminating blank line. */
  raw: string;
  event: string | undefined;
  data: string;
}

/** A frame this large is not an event a client can use; the stream is cut instead of buffered. */
export const MAX_FRAME_CHARS = 16 * 1024 * 1024;

/**
 * Cuts a byte stream into whole SSE frames, however the bytes were split across TCP chunks
 * (mid-line, mid-JSON, mid-UTF-8 character). Each byte is scanned once; a frame that grows past
 * MAX_FRAME_CHARS without ending makes push() return 'oversized'.
 */
export class SseFramer {
  private decoder = new StringDecoder('utf8');
  private buffer = '';
  /** Where the search for the next frame end resumes (bytes before it hold no blank line). */
  private scanned = 0;

  push(chunk: Buffer): SseFrame[] | 'oversized' {
    this.buffer += this.decoder.write(chunk);
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const end = frameEnd(this.buffer, Math.max(start, this.scanned - 3));
      if (end === -1) break;
      frames.push(parseFrame(this.buffer.slice(start, end)));
      start = end;
    }
    if (start > 0) this.buffer = this.buffer.slice(start);
    this.scanned = this.buffer.length;
    return this.buffer.length > MAX_FRAME_CHARS ? 'oversized' : frames;
  }

  /** Characters after the last complete frame (a stream cut mid-frame). */
  remainder(): string {
    return this.buffer + this.decoder.end();
  }
}

const NEWLINE = /[\r\n]/g;
const BLANK_LINE = /^(?:\r\n\r\n|\n\n|\r\r|\n\r\n|\r\n\n)/;

/** Index just past the first blank line (\n\n, \r\n\r\n, \r\r) at or after `from`, or -1. */
function frameEnd(text: string, from: number): number {
  NEWLINE.lastIndex = Math.max(from, 0);
  for (let match = NEWLINE.exec(text); match; match = NEWLINE.exec(text)) {
    const blank = BLANK_LINE.exec(text.slice(match.index, match.index + 4));
    if (blank) return match.index + blank[0].length;
  }
  return -1;
}

export function parseFrame(raw: string): SseFrame {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\r|\n/)) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { raw, event, data: data.join('\n') };
}
