// Price plans, customers' pricing, the pricing audit, operators' price lists and the margin report
// on the wire. Money as six-decimal strings; upstream costs only ever reach the operators' surface.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { MarginRow } from '../../domain/billing/margin.ts';
import type { AuditRecord, CustomerPricing, PlanRecord } from '../../domain/plans/service.ts';
import type { PriceOverride } from '../../pricing/plans.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminComponents } from '../../types.ts';
import { priceToWire } from './models.ts';
import { priceRuleToWire } from './price-rule.ts';

type Schemas = AdminComponents['schemas'];

const overridesToWire = (overrides: readonly PriceOverride[]): Schemas['PriceOverride'][] => overrides.map((o) => ({ ...o }));

export const planToWire = (plan: PlanRecord): Schemas['PricePlan'] => ({
  id: plan.id,
  object: 'price_plan',
  name: plan.name,
  description: plan.description,
  multiplier: plan.multiplier,
  overrides: overridesToWire(plan.overrides),
  version: plan.version,
  customers: plan.customers,
  created_at: plan.createdAt.toISOString(),
  updated_at: plan.updatedAt.toISOString(),
});

export const customerPricingToWire = (pricing: CustomerPricing): Schemas['CustomerPricing'] => ({
  object: 'customer_pricing',
  customer_id: pricing.customerId,
  plan: pricing.plan && { id: pricing.plan.id, name: pricing.plan.name, version: pricing.plan.version },
  overrides: overridesToWire(pricing.overrides),
});

export const auditToWire = (entry: AuditRecord): Schemas['PricingAuditEntry'] => ({
  id: entry.id.toString(),
  object: 'pricing_audit_entry',
  subject_type: entry.subjectType,
  subject_id: entry.subjectId,
  action: entry.action,
  actor: entry.actor,
  old: entry.old,
  new: entry.new,
  created_at: entry.createdAt.toISOString(),
});

export const modelPriceToWire = (model: ResolvedModel): Schemas['AdminModelPrice'] => ({
  model: model.id,
  group: model.group,
  price_version: model.priceVersion.version,
  price_rule: priceRuleToWire(model.pricing),
  price: priceToWire(model.price, model),
  routes: model.routes.map((route) => ({
    provider: route.provider.id,
    upstream_model: route.upstreamModel,
    priority: route.priority,
    cost: route.cost ? priceToWire(route.cost, model) : null,
  })),
});

const orNull = (amount: bigint | null) => (amount === null ? null : formatMicros(amount));

export const marginFiguresToWire = (row: Omit<MarginRow, 'customerId' | 'model'>): Schemas['MarginFigures'] => ({
  requests: row.requests,
  revenue: formatMicros(row.revenue),
  revenue_without_cost: formatMicros(row.revenueWithoutCost),
  upstream_cost: orNull(row.upstreamCost),
  margin: orNull(row.margin),
});
