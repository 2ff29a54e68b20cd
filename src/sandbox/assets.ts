// The files a simulated provider "generated": deterministic bytes per asset (an MP4 `ftyp` box,
// then noise), streamed with back-pressure and served by byte range like a CDN or OpenAI's
// /content. Tests compute the same bytes with assetBytes().
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { JsonAnswer } from './json-server.ts';

const BLOCK = 64 * 1024;
const FTYP = Buffer.from('000000186674797069736f6d0000020069736f6d6d703432', 'hex');
const blocks = new Map<string, Buffer>();

function baseBlock(seed: string): Buffer {
  let block = blocks.get(seed);
  if (block) return block;
  block = Buffer.alloc(BLOCK);
  for (let i = 0; i < BLOCK; i += 32) createHash('sha256').update(`${seed}:${i}`).digest().copy(block, i);
  FTYP.copy(block, 0);
  if (blocks.size > 1000) blocks.clear();
  blocks.set(seed, block);
  return block;
}

/** Bytes [start, end) of the asset named `seed`. */
function slice(seed: string, start: number, end: number): Buffer {
  const base = baseBlock(seed);
  const out = Buffer.alloc(end - start);
  for (let at = start; at < end;) {
    const index = Math.floor(at / BLOCK);
    const from = at - index * BLOCK;
    const length = Math.min(BLOCK - from, end - at);
    base.copy(out, at - start, from, from + length);
    const mark = index & 0xff; // every 64 KiB block differs from the one before
    if (mark) for (let i = at - start; i < at - start + length; i++) out[i]! ^= mark;
    at += length;
  }
  return out;
}

/** The whole asset, as a client downloading it should receive it. */
export function assetBytes(seed: string, size: number): Buffer {
  return slice(seed, 0, size);
}

function stream(seed: string, start: number, end: number, cutAt?: number): Readable {
  let at = start;
  return new Readable({
    highWaterMark: BLOCK,
    read() {
      if (cutAt !== undefined && at >= cutAt) return void this.destroy(new Error('simulated broken connection'));
      if (at >= end) return void this.push(null);
      const next = Math.min(end, at + BLOCK);
      const chunk = slice(seed, at, next);
      at = next;
      this.push(chunk);
    },
  });
}

/** One `bytes=` range, as CDNs honour it: several ranges or a malformed header get the whole file. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size : Math.min(size, Number(match[2]) + 1);
  return start >= size || end <= start ? 'unsatisfiable' : { start, end };
}

/** `cutAt`: the connection breaks after this many bytes of the file (`[[sim cut_bytes=N]]`). */
export function assetAnswer(seed: string, size: number, contentType: string, rangeHeader: string | undefined, cutAt?: number): JsonAnswer {
  const range = parseRange(rangeHeader, size);
  if (range === 'unsatisfiable') return { status: 416, body: Buffer.alloc(0), headers: { 'content-type': contentType, 'content-range': `bytes */${size}` } };
  const { start, end } = range ?? { start: 0, end: size };
  return {
    status: range ? 206 : 200,
    body: stream(seed, start, end, cutAt),
    headers: {
      'content-type': contentType,
      'content-length': String(end - start),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${end - 1}/${size}` } : {}),
    },
  };
}
