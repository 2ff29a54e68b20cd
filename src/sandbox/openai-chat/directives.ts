// Behaviour switches of the simulated Chat Completions upstream, set in the prompt so they travel
// through the gateway untouched. The Anthropic simulator's switches apply ("[[sim error=429]]",
// "[[sim no_usage]]", "[[sim cut=3]]", "[[sim error_event=2]]", "[[sim tool]]", "[[sim split]]",
// "[[sim deltas=64 gap_ms=20]]", "[[sim first_byte_ms=500]]"), plus two of OpenAI's usage details:
// "[[sim cached=12]]" (prompt tokens served from the cache) and "[[sim reasoning=30]]" (hidden
// reasoning tokens inside completion_tokens).
import { parseDirectives, type SimBehaviour } from '../anthropic/directives.ts';

export { requestText } from '../anthropic/directives.ts';

export interface ChatSimBehaviour extends SimBehaviour {
  cachedTokens?: number;
  reasoningTokens?: number;
}

const EXTRA = /\[\[sim ([^\]]*)\]\]/g;

export function parseChatDirectives(text: string): ChatSimBehaviour {
  const behaviour: ChatSimBehaviour = parseDirectives(text);
  for (const match of text.matchAll(EXTRA)) {
    for (const token of (match[1] ?? '').trim().split(/\s+/)) {
      const [name, raw] = token.split('=');
      const value = Number(raw);
      if (!Number.isSafeInteger(value) || value < 0) continue;
      if (name === 'cached') behaviour.cachedTokens = value;
      if (name === 'reasoning') behaviour.reasoningTokens = value;
    }
  }
  return behaviour;
}
