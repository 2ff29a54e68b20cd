// What a caller pays for a model: the model as the catalogue has it, re-priced by the caller's own
// overrides and plan (src/pricing/plans.ts has the precedence) and frozen as a price version
// (versions.ts), so a hold names the version it was priced at. Customers without a plan or
// overrides get the catalogue's model untouched, with no work at all.
//
// Plans are remembered `cacheMs` after they are read (a plan in use past half of that is read
// again in the background), so pricing costs no query per request. A change made through this
// process is forgotten here at once; through another replica when PostgreSQL's notification of
// it arrives (key-changes.ts, `{"plan": id}`), and within `cacheMs` at worst. The customer's plan
// id and overrides ride with its key (src/customers/authenticate.ts), forgotten the same way.
import type { Knex } from 'knex';
import type { ResolvedModel } from '../../catalogue/store.ts';
import { tierProblems } from '../../catalogue/tier-checks.ts';
import type { Caller } from '../../customers/service.ts';
import type { KeysChanged } from '../../customers/key-changes.ts';
import type { Logger } from '../../logger.ts';
import { compilePlan, resolvePrice, type CompiledPlan, type Price, type PriceOverride } from '../../pricing/plans.ts';
import { findPlan } from './repo.ts';
import { createScopedVersions } from './versions.ts';

/** Whose prices: a plan (or none) and a customer's own overrides. */
export interface PricingOf {
  customerId: string;
  planId?: string | null;
  overrides?: readonly PriceOverride[] | null;
}

export interface PlanBook {
  /** The model as `caller` buys it (anonymous callers and customers without a plan: the catalogue's). */
  priced(caller: Caller | null, model: ResolvedModel): Promise<ResolvedModel>;
  /** The model as a customer with this pricing buys it (operators' previews, a customer's pricing as stored). */
  pricedFor(pricing: PricingOf, model: ResolvedModel): Promise<ResolvedModel>;
  /** The plan as this process uses it now (null: no such plan). */
  plan(id: string): Promise<CompiledPlan | null>;
  /** A plan changed (here or, by notification, on another replica): its next use reads the database. */
  forgetChanged(change: KeysChanged): void;
}

interface Remembered {
  plan: CompiledPlan | null;
  refreshAt: number;
  until: number;
  refreshing?: boolean;
}

/** A price that can be charged for this model: the catalogue's checks of tiers. */
const chargeable = (model: ResolvedModel) => (price: Price) => tierProblems({ ...model, routes: [], price }, '').length === 0;

export function createPlanBook(deps: { db: Knex; logger: Logger; cacheMs: number; now?: () => number }): PlanBook {
  const now = deps.now ?? Date.now;
  const plans = new Map<string, Remembered>();
  const versions = createScopedVersions(deps.db);
  /** Bumped by every forget: a read that began before it does not store what it read. */
  let generation = 0;
  /** Priced models by catalogue model (a reload replaces them all) and whose prices. */
  let memo = new WeakMap<ResolvedModel, Map<string, ResolvedModel>>();

  async function read(id: string): Promise<CompiledPlan | null> {
    const began = generation;
    const row = await findPlan(deps.db, id);
    const plan = row ? compilePlan(row) : null;
    if (began === generation && deps.cacheMs > 0) {
      const at = now();
      plans.set(id, { plan, refreshAt: at + deps.cacheMs / 2, until: at + deps.cacheMs });
    }
    return plan;
  }

  async function planOf(id: string): Promise<CompiledPlan | null> {
    const known = plans.get(id);
    const at = now();
    if (!known || known.until <= at) return read(id);
    if (known.refreshAt <= at && !known.refreshing) {
      known.refreshing = true;
      // A failed refresh (the database away) leaves the entry to expire at `until`.
      void read(id)
        .catch(() => undefined)
        .finally(() => (known.refreshing = false));
    }
    return known.plan;
  }

  async function pricedWith(pricing: PricingOf, plan: CompiledPlan | null, model: ResolvedModel): Promise<ResolvedModel> {
    const own = pricing.overrides?.find((o) => o.model === model.id);
    if (!plan && !own) return model;
    const key = `${plan ? `${plan.plan.id}@${plan.plan.version}` : ''}|${own ? `${pricing.customerId}:${JSON.stringify(own)}` : ''}`;
    const byModel = memo.get(model) ?? new Map<string, ResolvedModel>();
    const remembered = byModel.get(key);
    if (remembered) return remembered;
    const { price, rule } = resolvePrice(model, plan, own ? [own] : null, chargeable(model));
    if (rule.rule === 'list') return model;
    const scope = rule.rule === 'customer_override' ? `customer:${pricing.customerId}` : `plan:${plan!.plan.id}`;
    const priced: ResolvedModel = { ...model, price, priceVersion: await versions.versionOf(model.id, scope, price, rule), pricing: rule };
    if (byModel.size > 100) byModel.clear(); // a customer's overrides are part of the key: bounded
    byModel.set(key, priced);
    memo.set(model, byModel);
    return priced;
  }

  async function pricedFor(pricing: PricingOf, model: ResolvedModel): Promise<ResolvedModel> {
    if (!pricing.planId && !pricing.overrides?.length) return model;
    let plan: CompiledPlan | null = null;
    if (pricing.planId) {
      plan = await planOf(pricing.planId);
      // A plan cannot be deleted while customers are on it; this is a key remembered across the delete.
      if (!plan) deps.logger.warn({ plan_id: pricing.planId, customer_id: pricing.customerId }, 'customer on a plan that no longer exists: list prices');
    }
    return pricedWith(pricing, plan, model);
  }

  return {
    priced: (caller, model) =>
      caller && (caller.planId || caller.priceOverrides)
        ? pricedFor({ customerId: caller.customerId, planId: caller.planId ?? null, overrides: caller.priceOverrides ?? null }, model)
        : Promise.resolve(model),
    pricedFor,
    plan: planOf,
    forgetChanged(change) {
      if (change !== 'anything' && !('planId' in change)) return;
      generation++;
      if (change === 'anything') plans.clear();
      else plans.delete(change.planId);
      memo = new WeakMap();
    },
  };
}
