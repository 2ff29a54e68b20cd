// A catalogue as loaded: its models with the routes an enabled provider serves (store.ts builds
// them; names.ts indexes them by the names clients send).
import type { PriceVersion } from './price-versions.ts';
import type { ModelEntry, ResolvedProvider, RouteEntry, TokenPrice, VideoPrice } from './types.ts';

export interface ResolvedRoute {
  provider: ResolvedProvider;
  upstreamModel: string;
  priority: number;
  /** What the provider charges through this route (the catalogue's `cost`); undefined: unknown. */
  cost?: TokenPrice | VideoPrice;
}

export interface ResolvedModel extends Omit<ModelEntry, 'routes'> {
  public: boolean;
  /** The version `price` is frozen as: the catalogue's, or a customer's plan's (src/domain/plans/book.ts). */
  priceVersion: PriceVersion;
  /** How `price` was chosen for the caller (customer override, plan, list); absent: the catalogue's list price. */
  pricing?: PriceRule;
  /** Routes whose provider is enabled, by priority (lowest first). Empty: nothing can serve it. */
  routes: ResolvedRoute[];
  /** Every route the file gives it, enabled or not (the operators' view of the catalogue). */
  declaredRoutes: RouteEntry[];
}

export type PriceRuleName = 'customer_override' | 'plan_model' | 'plan_pattern' | 'plan_multiplier' | 'list';

/** The rule that priced a model for a customer, as price versions, receipts and exports name it. */
export interface PriceRule {
  rule: PriceRuleName;
  /** The plan whose rule it is (plan_model, plan_pattern, plan_multiplier). */
  plan?: { id: string; name: string; version: number };
  /** The pattern that matched (plan_pattern). */
  pattern?: string;
  /** The multiplier applied, when the rule is one (an override's or the plan's). */
  multiplier?: string;
}
