// Long-context tiers: providers price a whole request higher once its input passes a threshold
// (Claude's 1M-context models and Gemini Pro above 200,000 input tokens, GPT-5.4 and later above
// 272,000). The rule, in one place for settle, checkpoints, quotes, receipts and reconciliation:
//
// - The input judged is the usage as reported (or estimated, when the provider reports none):
//   input + cache writes + cache reads. A tier applies when that is strictly above its threshold;
//   the last tier passed wins. So the choice is a pure function of (price, usage).
// - The tier prices every token line of the request (input, cache writes, cache reads, output);
//   multipliers (fast, priority, flex, ultrafast) multiply the tier's prices; server tool requests
//   keep the base prices (they are not tokens).
// - A cache price a tier leaves out follows the tier's input step (see `priceAtTier`).
// - A hold is priced at the tier its input estimate can reach (see `holdPrice`).
import type { TokenPrice } from '../catalogue/types.ts';
import { formatMicros, parseMicros } from '../shared/money.ts';
import type { TokenUsage } from './usage.ts';

/** The tier a request was priced at, as its log row and receipt record it. */
export interface AppliedTier {
  /** Position in the price's `tiers` (0 is the first). */
  index: number;
  above_input_tokens: number;
  /** The input it was judged on: input + cache writes + cache reads. */
  input_tokens: number;
}

const count = (value: number | bigint | null | undefined): bigint => (value === null || value === undefined ? 0n : BigInt(value));

/** What a tier is judged on: all input the request reported, cached or not. */
export const judgedInput = (usage: TokenUsage): bigint =>
  count(usage.input_tokens) + count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens);

/** The last tier whose threshold `input` is strictly above; undefined: the base prices. */
export function tierIndexAt(price: TokenPrice, input: bigint): number | undefined {
  let index: number | undefined;
  (price.tiers ?? []).forEach((tier, i) => {
    if (input > BigInt(tier.above_input_tokens)) index = i;
  });
  return index;
}

/** The tier `input` passes, as recorded: undefined for the base prices. */
function appliedAt(price: TokenPrice, input: bigint): AppliedTier | undefined {
  const index = tierIndexAt(price, input);
  return index === undefined ? undefined : { index, above_input_tokens: price.tiers![index]!.above_input_tokens, input_tokens: Number(input) };
}

/** The tier a usage is priced at, or undefined for the base prices. */
export const tierOf = (price: TokenPrice, usage: TokenUsage): AppliedTier | undefined => appliedAt(price, judgedInput(usage));

type CachePrice = 'cache_read_per_mtok' | 'cache_write_per_mtok' | 'cache_write_1h_per_mtok';
const CACHE_PRICES: readonly CachePrice[] = ['cache_read_per_mtok', 'cache_write_per_mtok', 'cache_write_1h_per_mtok'];

/**
 * The prices of one tier as a price without tiers (undefined: the base's). A cache price the tier
 * sets is used as it is. One it leaves out follows the input step: the base's cache price x (tier
 * input / base input), rounded up to the micro-unit when the ratio does not divide evenly. Where
 * the base has no such price either, it stays out, so it defaults as the base's does (cache reads
 * and writes to the tier's input price, 1-hour writes to the tier's cache-write price). A base
 * input of zero has no step to follow: the catalogue refuses a tier that would need one
 * (load.ts), and this falls back to the tier's input price.
 */
export function priceAtTier(price: TokenPrice, index: number | undefined): TokenPrice {
  const { tiers, ...base } = price;
  const tier = index === undefined ? undefined : tiers?.[index];
  if (!tier) return base;
  const flat: TokenPrice = { ...base, input_per_mtok: tier.input_per_mtok, output_per_mtok: tier.output_per_mtok };
  const baseInput = parseMicros(base.input_per_mtok);
  const tierInput = parseMicros(tier.input_per_mtok);
  for (const field of CACHE_PRICES) {
    const own = tier[field];
    const fromBase = base[field];
    if (own !== undefined) flat[field] = own;
    else if (fromBase !== undefined) flat[field] = baseInput === 0n ? tier.input_per_mtok : formatMicros(ceilDiv(parseMicros(fromBase) * tierInput, baseInput));
  }
  return flat;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** The flat prices a usage is charged at: its tier's, or the base's. */
export const priceFor = (price: TokenPrice, usage: TokenUsage): TokenPrice => priceAtTier(price, tierIndexAt(price, judgedInput(usage)));

/**
 * How far a reported input may pass the request's estimate, as a fraction: 5/4. The estimate
 * counts four characters a token; a tokenizer reading code or other languages counts them denser
 * (about 3.2 characters a token, a quarter more tokens). A request whose count passes even that is
 * charged beyond its hold, never at a lower tier (docs/money.md).
 */
const REACH = { numerator: 5n, denominator: 4n };

/** The most input a request estimated at `inputEstimate` tokens can be reported at (for holds). */
export const reachableInput = (inputEstimate: number): bigint => ceilDiv(BigInt(inputEstimate) * REACH.numerator, REACH.denominator);

/**
 * The prices a hold is sized at: the highest tier the request can reach, judged on its input
 * estimate plus a quarter (`REACH`). A small request of a 1M-context model holds at the base
 * prices; one whose estimate comes within a quarter of a threshold holds at that tier, so the
 * hold covers the step when the provider's count passes it. A tier above the model's context
 * window is refused by the catalogue, so none here is out of reach for that reason.
 */
export const holdPrice = (price: TokenPrice, inputEstimate: number): TokenPrice => priceAtTier(price, holdTier(price, inputEstimate)?.index);

/** The tier `holdPrice` sizes a hold at (judged on the reachable input), or undefined: the base. */
export const holdTier = (price: TokenPrice, inputEstimate: number): AppliedTier | undefined => appliedAt(price, reachableInput(inputEstimate));
