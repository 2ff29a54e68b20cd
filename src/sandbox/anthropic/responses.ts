// What the simulated model says, and how much it reports using.
import { randomBytes } from 'node:crypto';
import type { SimBehaviour } from './directives.ts';

export const simulatedTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** Block types providers bill by their content (pixels, pages, seconds), of every protocol simulated. */
const MEDIA_TYPES = new Set(['image', 'document', 'image_url', 'input_audio', 'file', 'input_image', 'input_file']);

/** How many media blocks a request holds, anywhere in it. */
export function mediaBlocks(body: unknown): number {
  let found = 0;
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      const type = (node as { type?: unknown }).type;
      if (typeof type === 'string' && MEDIA_TYPES.has(type)) found++;
      stack.push(...Object.values(node));
    }
  }
  return found;
}

/** The input a simulated provider reports: the request's text, plus `media_tokens` per media block when asked. */
export const simulatedInput = (text: string, body: unknown, behaviour: { mediaTokens?: number }): number =>
  simulatedTokens(text) + (behaviour.mediaTokens ? behaviour.mediaTokens * mediaBlocks(body) : 0);

const WORDS = ['Hello', ' from', ' the', ' sandbox', ' model.', ' This', ' answer', ' is', ' simulated', ' and', ' deterministic.', ' Enjoy!'];

export const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface Block {
  start: Record<string, unknown>;
  deltas: Array<Record<string, unknown>>;
  final: Record<string, unknown>;
}

/** The content blocks of an answer, as stream deltas and as final blocks. */
export function answerBlocks(behaviour: SimBehaviour): Block[] {
  const blocks: Block[] = [];
  if (behaviour.thinking) {
    const thoughts = ['Let me', ' think about', ' this.'];
    blocks.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [...thoughts.map((t) => ({ type: 'thinking_delta', thinking: t })), { type: 'signature_delta', signature: 'sig_sandbox' }],
      final: { type: 'thinking', thinking: thoughts.join(''), signature: 'sig_sandbox' },
    });
  }
  if (behaviour.tool) {
    const json = '{"location": "Paris", "unit": "celsius"}';
    const chunks = ['', json.slice(0, 13), json.slice(13, 27), json.slice(27)];
    const toolId = id('toolu');
    blocks.push({
      start: { type: 'tool_use', id: toolId, name: 'get_weather', input: {} },
      deltas: chunks.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      final: { type: 'tool_use', id: toolId, name: 'get_weather', input: JSON.parse(json) },
    });
  } else {
    const count = behaviour.deltas ?? 8;
    const filler = behaviour.deltaChars ? 'x'.repeat(behaviour.deltaChars) : undefined;
    const words = Array.from({ length: count }, (_, i) => filler ?? WORDS[i % WORDS.length]!);
    blocks.push({
      start: { type: 'text', text: '' },
      deltas: words.map((text) => ({ type: 'text_delta', text })),
      final: { type: 'text', text: words.join('') },
    });
  }
  return blocks;
}

export function outputTokens(blocks: Block[]): number {
  return blocks.reduce((sum, b) => sum + b.deltas.length, 0);
}

export interface Answer {
  blocks: Block[];
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
}

/**
 * The answer to a request, one output token per delta. Like the real model it stops at the
 * request's max_tokens (stop_reason `max_tokens`): text is cut there, a thinking or tool block that
 * does not fit whole is left out with what follows. `[[sim deltas=N]]` asks for N text deltas
 * whatever max_tokens says: a provider that overruns it, for the gateway's checks.
 */
export function answerOf(behaviour: SimBehaviour, maxTokens: number | undefined): Answer {
  const blocks = answerBlocks(behaviour);
  if (maxTokens === undefined || behaviour.deltas !== undefined || outputTokens(blocks) <= maxTokens) {
    return { blocks, stopReason: behaviour.tool ? 'tool_use' : 'end_turn' };
  }
  const kept: Block[] = [];
  let left = maxTokens;
  for (const block of blocks) {
    if (block.deltas.length <= left) {
      kept.push(block);
      left -= block.deltas.length;
      continue;
    }
    if (block.start.type === 'text' && left > 0) {
      const deltas = block.deltas.slice(0, left);
      kept.push({ start: block.start, deltas, final: { type: 'text', text: deltas.map((d) => d.text).join('') } });
    }
    break;
  }
  return { blocks: kept, stopReason: 'max_tokens' };
}
