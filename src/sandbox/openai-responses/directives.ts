// Behaviour switches of the simulated Responses upstream, set in the prompt so they travel through
// the gateway untouched. The Anthropic simulator's switches apply ("[[sim error=429]]",
// "[[sim no_usage]]", "[[sim cut=3]]", "[[sim error_event=2]]", "[[sim tool]]", "[[sim thinking]]",
// "[[sim split]]", "[[sim deltas=64 gap_ms=20]]", "[[sim first_byte_ms=500]]", "[[sim tier=flex]]",
// "[[sim cache_write=5]]", "[[sim cache_read=5]]"), plus "[[sim cached=12]]" (cached input),
// "[[sim reasoning=30]]" (reasoning tokens, and a reasoning item with a summary), "[[sim incomplete]]"
// (stops as if max_output_tokens were reached), "[[sim failed]]" (ends with response.failed, usage
// included unless no_usage), "[[sim unknown_event]]" (an event type no one documents yet) and, for
// background responses, "[[sim queued_ms=N running_ms=N]]".
import { parseDirectives, type SimBehaviour } from '../anthropic/directives.ts';

export interface ResponsesSimBehaviour extends SimBehaviour {
  cachedTokens?: number;
  reasoningTokens?: number;
  incomplete?: boolean;
  failed?: boolean;
  unknownEvent?: boolean;
  queuedMs?: number;
  runningMs?: number;
  /** Call this function (given to `next()` only): its name, and its arguments sent in two deltas. */
  call?: { name: string; arguments: string };
}

const DIRECTIVE = /\[\[sim ([^\]]*)\]\]/g;

export function parseResponsesDirectives(text: string): ResponsesSimBehaviour {
  const behaviour: ResponsesSimBehaviour = parseDirectives(text);
  for (const match of text.matchAll(DIRECTIVE)) {
    for (const token of (match[1] ?? '').trim().split(/\s+/)) {
      const [name, raw] = token.split('=');
      const value = Number(raw);
      const count = Number.isSafeInteger(value) && value >= 0 ? value : undefined;
      if (name === 'cached') behaviour.cachedTokens = count;
      else if (name === 'reasoning') behaviour.reasoningTokens = count;
      else if (name === 'incomplete') behaviour.incomplete = true;
      else if (name === 'failed') behaviour.failed = true;
      else if (name === 'unknown_event') behaviour.unknownEvent = true;
      else if (name === 'queued_ms') behaviour.queuedMs = count;
      else if (name === 'running_ms') behaviour.runningMs = count;
    }
  }
  return behaviour;
}

/** All text of a request (input, instructions, tools), for directives and the simulator's token count. */
export function responsesRequestText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') parts.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(body.input);
  walk(body.instructions);
  walk(body.tools);
  return parts.join(' ');
}
