// Prices of sandbox/gemini-pro (catalogue.sample.yaml), for tests that assert exact wallet moves.
import { formatMicros } from '../../src/shared/money.ts';

export const GEMINI_MODEL = 'sandbox/gemini-pro'; // routes: sandbox-gemini, then sandbox-vertex-gemini
/** The name Gemini CLI 0.61.0 sends for its turns: an alias of GEMINI_MODEL in the sandbox. */
export const GEMINI_CLI_MODEL = 'gemini-3.1-pro-preview';

export interface UsageMetadata {
  promptTokenCount: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

/** Micro-units at 2.00 (input and tool-use prompts), 0.20 (cached) and 12.00 (candidates and thoughts) per million tokens, rounded up once. */
export function geminiMicros(usage: UsageMetadata, price = { input: 2_000_000n, cached: 200_000n, output: 12_000_000n }): bigint {
  const cached = BigInt(usage.cachedContentTokenCount ?? 0);
  const input = BigInt(usage.promptTokenCount) - cached + BigInt(usage.toolUsePromptTokenCount ?? 0);
  const output = BigInt(usage.candidatesTokenCount ?? 0) + BigInt(usage.thoughtsTokenCount ?? 0);
  return (input * price.input + cached * price.cached + output * price.output + 999_999n) / 1_000_000n;
}

/** The same as a wallet amount ("0.000017"), summed over several answers. */
export const geminiCost = (...usages: UsageMetadata[]): string => formatMicros(usages.reduce((sum, u) => sum + geminiMicros(u), 0n));

/** The flash model's prices (sandbox/gemini-flash: 0.50, 0.05, 3.00). */
export const flashMicros = (usage: UsageMetadata): bigint => geminiMicros(usage, { input: 500_000n, cached: 50_000n, output: 3_000_000n });
