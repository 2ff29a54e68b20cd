// Prices of sandbox/chat-model (catalogue.sample.yaml), for tests that assert exact wallet moves.
import { formatMicros } from '../../src/shared/money.ts';

export const CHAT_MODEL = 'sandbox/chat-model'; // routes: sandbox-openai-chat, then sandbox-openai-chat-backup

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** Micro-units for a usage at 0.50 (input), 0.25 (cached input) and 1.50 (output) per million tokens, rounded up once. */
export function chatMicros(usage: Usage): bigint {
  const cached = BigInt(usage.prompt_tokens_details?.cached_tokens ?? 0);
  const numerator = (BigInt(usage.prompt_tokens) - cached) * 500_000n + cached * 250_000n + BigInt(usage.completion_tokens) * 1_500_000n;
  return (numerator + 999_999n) / 1_000_000n;
}

/** The same as a wallet amount ("0.000017"), summed over several answers. */
export const chatCost = (...usages: Usage[]): string => formatMicros(usages.reduce((sum, u) => sum + chatMicros(u), 0n));
