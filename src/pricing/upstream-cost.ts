// What a charge cost the operator upstream: the delivered usage priced at the serving route's
// `cost` (the catalogue's, in the model's price shape, tiers and premiums included) with the same
// functions that price the customer's charge. Every charging journal entry records it beside the
// charge (`purpose.upstream_cost`), for the operator's receipts, exports and margin report; no
// customer-facing answer shows it. A route without a cost records `amount: null` (unknown), never
// zero.
import type { ResolvedRoute } from '../catalogue/store.ts';
import type { TokenPrice, VideoPrice } from '../catalogue/types.ts';
import { costOf, type CostLine } from './cost.ts';

/** A route's cost as a task keeps it from acceptance to settlement (`video_tasks.upstream_cost`). */
export interface RouteCost {
  provider: string;
  upstream_model: string;
  price: TokenPrice | VideoPrice | null;
}

/** A charge's upstream cost as its journal entry records it. */
export interface UpstreamCost {
  /** Micro-units as a decimal integer string; null: the route has no cost. */
  amount: string | null;
  provider: string;
  upstream_model: string;
}

export const routeCost = (route: Pick<ResolvedRoute, 'provider' | 'upstreamModel' | 'cost'>): RouteCost => ({
  provider: route.provider.id,
  upstream_model: route.upstreamModel,
  price: route.cost ?? null,
});

/** The snapshot of one charge: `lines` are the delivered usage at the route's cost (undefined: no cost known). */
export const upstreamCost = (route: Pick<RouteCost, 'provider' | 'upstream_model'>, lines: readonly CostLine[] | undefined): UpstreamCost => ({
  amount: lines ? costOf(lines).toString() : null,
  provider: route.provider,
  upstream_model: route.upstream_model,
});

/**
 * A task's upstream cost for its settle entry: its usage at the route cost it was accepted with
 * (`lines`: undefined when that cost cannot price it). Tasks older than the column record none.
 */
export function taskUpstreamCost(
  route: RouteCost | null | undefined,
  lines: (price: TokenPrice | VideoPrice) => readonly CostLine[] | undefined,
): { upstream_cost?: UpstreamCost } {
  if (!route) return {};
  return { upstream_cost: upstreamCost(route, route.price ? lines(route.price) : undefined) };
}

/** An entry's snapshot as stored, or undefined when it has none (or not one this code wrote). */
export function readUpstreamCost(value: unknown): UpstreamCost | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const cost = value as Record<string, unknown>;
  if (typeof cost.provider !== 'string' || typeof cost.upstream_model !== 'string') return undefined;
  if (cost.amount !== null && !(typeof cost.amount === 'string' && /^-?\d{1,19}$/.test(cost.amount))) return undefined;
  return { amount: cost.amount, provider: cost.provider, upstream_model: cost.upstream_model };
}

/**
 * A late report's cost beside the floor another party charged first (src/ledger/owed.ts): the
 * true-up records what the report adds, so the cost of a request is the sum over its entries, as
 * its charge is. A floor without a known cost leaves the report's whole cost to the true-up.
 */
export function costBeyondFloor(report: unknown, floor: unknown): UpstreamCost | undefined {
  const reported = readUpstreamCost(report);
  if (!reported) return undefined;
  const before = readUpstreamCost(floor);
  if (reported.amount === null || before?.amount === undefined || before.amount === null) return reported;
  return { ...reported, amount: (BigInt(reported.amount) - BigInt(before.amount)).toString() };
}
