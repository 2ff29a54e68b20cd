// What a token price's long-context tiers need beyond their schema (src/pricing/tiers.ts applies
// them): thresholds that strictly increase, each below the model's context window (a tier the
// reported input can never pass is a mistake in the file, not a price), and an input step to
// follow wherever a tier leaves a cache price out. A route's cost is checked the same way.
import { parseMicros } from '../shared/money.ts';
import { isVideoPrice, type ModelEntry, type TokenPrice } from './types.ts';

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

/**
 * What a route's `cost` needs beyond its schema: a token cost's tiers as a price's, and a video
 * cost for every resolution tier the model prices (a task at a tier without one would have no
 * cost to record).
 */
export function costProblems(model: ModelEntry, where: string): string[] {
  return model.routes.flatMap((route, r) => {
    const cost = route.cost;
    if (!cost) return [];
    const at = `${where}.routes.${r}`;
    if (!isVideoPrice(cost)) return tierProblems({ ...model, price: cost }, at).map((p) => p.replace(`${at}.price`, `${at}.cost`));
    if (!isVideoPrice(model.price)) return [];
    const missing = Object.keys(model.price.per_second).filter((tier) => !(tier in cost.per_second));
    return missing.length > 0 ? [`${at}.cost.per_second: no cost for ${missing.join(', ')} (every priced tier needs one)`] : [];
  });
}
