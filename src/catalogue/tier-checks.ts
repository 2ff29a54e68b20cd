// What a token price's long-context tiers need beyond their schema (src/pricing/tiers.ts applies
// them): thresholds that strictly increase, each below the model's context window (a tier the
// reported input can never pass is a mistake in the file, not a price), and an input step to
// follow wherever a tier leaves a cache price out.
import { parseMicros } from '../shared/money.ts';
import type { ModelEntry, TokenPrice } from './types.ts';

const CACHE_PRICES = ['cache_read_per_mtok', 'cache_write_per_mtok', 'cache_write_1h_per_mtok'] as const;

export function tierProblems(model: ModelEntry, where: string): string[] {
  const price = model.price as TokenPrice;
  const problems: string[] = [];
  (price.tiers ?? []).forEach((tier, i) => {
    const at = `${where}.price.tiers.${i}`;
    const previous = price.tiers![i - 1];
    if (previous && tier.above_input_tokens <= previous.above_input_tokens)
      problems.push(`${at}.above_input_tokens: thresholds must strictly increase (${tier.above_input_tokens} after ${previous.above_input_tokens})`);
    if (model.context_window !== undefined && tier.above_input_tokens >= model.context_window)
      problems.push(
        `${at}.above_input_tokens: ${tier.above_input_tokens} is not below the context window (${model.context_window}): the tier could never apply`,
      );
    const derived = CACHE_PRICES.filter((field) => tier[field] === undefined && price[field] !== undefined);
    if (derived.length > 0 && parseMicros(price.input_per_mtok) === 0n)
      problems.push(`${at}: set ${derived.join(', ')} (a cache price left out follows the input step, and a base input price of 0 has none)`);
  });
  return problems;
}
