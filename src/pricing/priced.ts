// What a charge was priced from, kept on its journal entry (`purpose.priced`): the billed units and
// the pricing inputs that are not in the frozen price version (which multiplier applied, which
// video tier). Reconciliation prices each settled request and task again from it, at its frozen
// version and with the same functions the charge used, and proves that nothing delivered was
// dropped: priced = charged + debt + free units' value + what an operator waived.
import type { TokenPrice, VideoPrice } from '../catalogue/types.ts';
import { parseMicros } from '../shared/money.ts';
import { costOf, tokenLines, videoLines, type CostLine, type TokenUsage } from './cost.ts';
import { tierOf, type AppliedTier } from './tiers.ts';
import { isRecord } from '../shared/records.ts';

/** A catalogue multiplier by its name (`TokenPrice.multipliers`): the version says what it is worth. */
export type MultiplierName = 'fast' | 'priority' | 'flex' | 'ultrafast';

/** Token counts as billed (JSON numbers), and the multiplier that applied, if any. */
export type PricedTokens = { [K in Exclude<keyof TokenUsage, 'multiplierMicros'>]?: number } & { multiplier?: MultiplierName };

export type Priced =
  | { tokens: PricedTokens }
  /** Whole billed seconds at a priced resolution tier. */
  | { video: { seconds: number; tier: string } }
  /** A figure rather than units: a checkpoint of what was delivered, an operator's amount. */
  | { amount: string };

/** The cost lines of token usage at `price`: the one way a token charge is priced, and priced again. */
export function pricedTokenLines(price: TokenPrice, tokens: PricedTokens): CostLine[] {
  const { multiplier, ...usage } = tokens;
  const value = multiplier ? price.multipliers?.[multiplier] : undefined;
  return tokenLines(price, {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    ...usage,
    ...(value ? { multiplierMicros: parseMicros(value) } : {}),
  });
}

/** The long-context tier token usage is priced at (`tierOf`), for the receipt; undefined: the base prices. */
export const pricedTier = (price: TokenPrice, tokens: PricedTokens): AppliedTier | undefined =>
  tierOf(price, { input_tokens: tokens.input_tokens ?? 0, output_tokens: tokens.output_tokens ?? 0, ...tokens });

/** A `purpose.priced` as stored, or undefined when the entry has none (or not one this code reads). */
export function readPriced(value: unknown): Priced | undefined {
  if (!isRecord(value)) return undefined;
  if (isRecord(value.tokens)) return { tokens: value.tokens as PricedTokens };
  if (isRecord(value.video) && typeof value.video.tier === 'string' && typeof value.video.seconds === 'number')
    return { video: { seconds: value.video.seconds, tier: value.video.tier } };
  if (typeof value.amount === 'string' && /^\d+$/.test(value.amount)) return { amount: value.amount };
  return undefined;
}

/**
 * What `priced` costs at `price` (a frozen version's unit prices), in micro-units before free
 * units; undefined when that price cannot price it (a tier or a multiplier it does not have).
 */
export function pricedCost(priced: Priced, price: unknown): bigint | undefined {
  if ('amount' in priced) return BigInt(priced.amount);
  if (!isRecord(price)) return undefined;
  try {
    if ('video' in priced) {
      const perSecond = (price as unknown as VideoPrice).per_second?.[priced.video.tier];
      return perSecond ? costOf(videoLines(perSecond, priced.video.seconds)) : undefined;
    }
    const tokenPrice = price as unknown as TokenPrice;
    if (typeof tokenPrice.input_per_mtok !== 'string') return undefined;
    if (priced.tokens.multiplier && !tokenPrice.multipliers?.[priced.tokens.multiplier]) return undefined;
    return costOf(pricedTokenLines(tokenPrice, priced.tokens));
  } catch {
    return undefined; // a count that is not a whole number: the entry cannot be priced again
  }
}
