import { StringDecoder } from 'node:string_decoder';

export interface SseFrame {
  /** The frame exactly as received, including its terminating blank line. */
  raw: string;
  event: string | undefined;
  data: string;
}

/**
 * Cuts a byte stream into whole SSE frames, however the bytes were split across TCP chunks
 * (mid-line, mid-JSON, mid-UTF-8 character).
 */
export class SseFramer {
  private decoder = new StringDecoder('utf8');
  private buffer = '';

  push(chunk: Buffer): SseFrame[] {
    this.buffer += this.decoder.write(chunk);
    const frames: SseFrame[] = [];
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer);
      if (!match) break;
      const end = match.index + match[0].length;
      frames.push(parseFrame(this.buffer.slice(0, end)));
      this.buffer = this.buffer.slice(end);
    }
    return frames;
  }

  /** Bytes after the last complete frame (a stream cut mid-frame). */
  remainder(): string {
    return this.buffer + this.decoder.end();
  }
}

function parseFrame(raw: string): SseFrame {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r?\n/)) {
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
