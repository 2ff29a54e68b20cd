// A token quote (`dry_run: true` in the body of POST /v1/messages, /v1/chat/completions or
// /v1/responses): the hold the request would take now, found the way the request finds it (the
// same checks, model lookup, input estimate, long-context tier, premiums and free-unit
// arithmetic), with nothing held, logged as usage or sent to a provider. A request that follows
// with nothing in between (the same body without `dry_run`, the same free units left) holds
// exactly this; what it is charged is its reported usage, at the tier that usage reaches.
import { chargeAmount, type Ledger } from '../../ledger/index.ts';
import type { PriceRule } from '../../pricing/plans.ts';
import { costOf } from '../../pricing/cost.ts';
import { holdTier, type AppliedTier } from '../../pricing/tiers.ts';
import { Failure } from '../failure.ts';
import type { Passthrough } from '../passthrough/core.ts';
import type { PassthroughProtocol, PassthroughRequest } from '../passthrough/protocol.ts';
import { freeUnitsHeld } from './quote.ts';

export interface TokenQuote {
  model: string;
  priceVersion: number;
  /** The rule that chose the price (the customer's plan or override); undefined: the list price. */
  priceRule: PriceRule | undefined;
  /** The gateway's estimate of the request's input, what the hold is sized on. */
  inputTokens: number;
  /** The most output the answer may carry (held in full). */
  maxOutputTokens: number;
  /** The long-context tier the hold is priced at; undefined: the base prices. */
  holdTier: AppliedTier | undefined;
  /** The bound at those prices, before free units. */
  cost: bigint;
  freeUnits: bigint;
  freeUnit: string | null;
  /** The money the request would hold now. */
  hold: bigint;
}

/** Whether a body asks for a quote rather than an answer. */
export const isDryRun = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as Record<string, unknown>).dry_run === true;

export type QuoteTokens = (protocol: PassthroughProtocol, request: PassthroughRequest) => Promise<TokenQuote | Failure>;

export function createTokenQuotes(deps: { passthrough: Passthrough; ledger: Ledger }): QuoteTokens {
  return async (protocol, asked) => {
    const quoted = await quote(deps, protocol, asked);
    return quoted instanceof Failure && protocol.clientFailure ? protocol.clientFailure(quoted) : quoted;
  };
}

async function quote(deps: { passthrough: Passthrough; ledger: Ledger }, protocol: PassthroughProtocol, asked: PassthroughRequest) {
  // The request the quote stands for: the same body without the switch.
  const { dry_run: _dryRun, ...body } = asked.body;
  const request: PassthroughRequest = { ...asked, body };
  const invalid = protocol.check(body);
  if (invalid) return invalid;
  const resolved = await deps.passthrough.resolve(protocol, request);
  if (resolved instanceof Failure) return resolved;
  const { model } = resolved;
  const inspected = protocol.inspect(request, model);
  if (inspected instanceof Failure) return inspected;
  const bound = { lines: protocol.boundLines(resolved.price, inspected) };
  const freeUnits = await freeUnitsHeld(deps.ledger, request.caller, model, bound);
  return {
    model: model.id,
    priceVersion: model.priceVersion.version,
    priceRule: model.pricing,
    inputTokens: inspected.inputTokens,
    maxOutputTokens: inspected.maxOutputTokens,
    holdTier: holdTier(resolved.price, inspected.inputTokens),
    cost: costOf(bound.lines),
    freeUnits,
    freeUnit: model.free_quota?.unit ?? null,
    hold: chargeAmount(bound, freeUnits, model.free_quota?.unit ?? null).amount,
  } satisfies TokenQuote;
}
