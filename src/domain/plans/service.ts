// Price plans for operators: create, change and delete plans, put a customer on one (or none) with
// its own per-model overrides, and read the audit of every such change (who, when, old and new,
// written in the change's own transaction). Changes take effect without a restart: at once on this
// replica, on the others when the database's notification arrives (book.ts). Work already held
// keeps the price version it was held at.
import type { Knex } from 'knex';
import type { CatalogueStore, ResolvedModel } from '../../catalogue/store.ts';
import type { CustomerService } from '../../customers/service.ts';
import type { PriceOverride } from '../../pricing/plans.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import { CustomerError } from '../../customers/errors.ts';
import { Failure } from '../failure.ts';
import type { Logger } from '../../logger.ts';
import { createPlanBook } from './book.ts';
import { PlanError } from './errors.ts';
import * as repo from './repo.ts';
import { multiplierProblem, overrideProblems } from './validate.ts';

export type { PlanRecord, AuditRecord } from './repo.ts';

export interface PlanInput {
  name?: string;
  description?: string | null;
  multiplier?: string | null;
  overrides?: PriceOverride[];
  actor?: string;
}

export interface CustomerPricing {
  customerId: string;
  plan: repo.PlanRecord | null;
  overrides: PriceOverride[];
}

const UNIQUE_VIOLATION = '23505';

/** Multipliers as six-decimal strings, so "1.2" and "1.20" are one plan version's words. */
const normalised = (overrides: PriceOverride[]): PriceOverride[] =>
  overrides.map((o) => (o.multiplier === undefined ? o : { ...o, multiplier: formatMicros(parseMicros(o.multiplier)) }));

export function createPlans(deps: { db: Knex; catalogue: CatalogueStore; customers: CustomerService; logger: Logger; cacheMs: number }) {
  const { db } = deps;
  const book = createPlanBook({ db, logger: deps.logger, cacheMs: deps.cacheMs });
  const invalid = (problems: string[]) =>
    new Failure(
      PlanError.InvalidPricing,
      `The pricing cannot be used: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}.`,
      {
        param: 'overrides',
      },
    );

  function check(input: PlanInput, patternsAllowed: boolean): Failure | undefined {
    const multiplier = input.multiplier ? multiplierProblem(input.multiplier, 'multiplier') : undefined;
    if (multiplier) return new Failure(PlanError.InvalidPricing, `The pricing cannot be used: ${multiplier}.`, { param: 'multiplier' });
    const problems = overrideProblems(input.overrides ?? [], deps.catalogue.current().models, patternsAllowed);
    return problems.length > 0 ? invalid(problems) : undefined;
  }

  const nameTaken = (error: unknown) => (error as { code?: string }).code === UNIQUE_VIOLATION;
  const taken = () => new Failure(PlanError.PlanNameTaken, 'Another plan already has this name.', { param: 'name' });
  const notFound = () => new Failure(PlanError.PlanNotFound, 'No price plan with this id.', { param: 'plan_id' });

  async function customerPricing(customerId: string): Promise<CustomerPricing | Failure> {
    const row = await repo.customerPricing(db, customerId);
    if (!row) return new Failure(CustomerError.CustomerNotFound, 'No customer with this id.');
    const plan = row.plan_id ? ((await repo.findPlan(db, row.plan_id)) ?? null) : null;
    return { customerId, plan, overrides: row.price_overrides ?? [] };
  }

  return {
    /** What callers pay: the discovery service prices every hold, quote and listing through it. */
    book,
    list: () => repo.listPlans(db),
    async get(id: string): Promise<repo.PlanRecord | Failure> {
      return (await repo.findPlan(db, id)) ?? notFound();
    },

    async create(input: PlanInput & { name: string }): Promise<repo.PlanRecord | Failure> {
      const invalidInput = check(input, true);
      if (invalidInput) return invalidInput;
      const plan = {
        id: `plan_${randomBase62(20)}`,
        name: input.name.trim(),
        description: input.description ?? null,
        multiplier: input.multiplier ? formatMicros(parseMicros(input.multiplier)) : null,
        overrides: normalised(input.overrides ?? []),
      };
      try {
        return await db.transaction(async (trx) => {
          const created = await repo.insertPlan(trx, plan);
          await repo.audit(trx, {
            subjectType: 'plan',
            subjectId: created.id,
            action: 'created',
            actor: input.actor ?? 'admin',
            old: null,
            new: repo.auditedPlan(created),
          });
          return created;
        });
      } catch (error) {
        if (nameTaken(error)) return taken();
        throw error;
      }
    },

    async update(id: string, input: PlanInput): Promise<repo.PlanRecord | Failure> {
      const invalidInput = check(input, true);
      if (invalidInput) return invalidInput;
      try {
        const updated = await db.transaction(async (trx) => {
          const before = await repo.findPlan(trx, id, true);
          if (!before) return notFound();
          const after = await repo.updatePlan(trx, id, {
            ...(input.name !== undefined ? { name: input.name.trim() } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(input.multiplier !== undefined ? { multiplier: input.multiplier === null ? null : formatMicros(parseMicros(input.multiplier)) } : {}),
            ...(input.overrides !== undefined ? { overrides: normalised(input.overrides) } : {}),
          });
          await repo.audit(trx, {
            subjectType: 'plan',
            subjectId: id,
            action: 'updated',
            actor: input.actor ?? 'admin',
            old: repo.auditedPlan(before),
            new: repo.auditedPlan(after),
          });
          return { ...after, customers: before.customers };
        });
        book.forgetChanged({ planId: id });
        return updated;
      } catch (error) {
        if (nameTaken(error)) return taken();
        throw error;
      }
    },

    async remove(id: string, actor = 'admin'): Promise<repo.PlanRecord | Failure> {
      const removed = await db.transaction(async (trx) => {
        const plan = await repo.findPlan(trx, id, true);
        if (!plan) return notFound();
        // Customers are locked out of joining by the plan's row lock; those on it refuse the delete.
        if (plan.customers > 0)
          return new Failure(PlanError.PlanInUse, `${plan.customers} customer(s) are on this plan: move them to another plan (or none) first.`, {
            param: 'plan_id',
          });
        await repo.deletePlan(trx, id);
        await repo.audit(trx, { subjectType: 'plan', subjectId: id, action: 'deleted', actor, old: repo.auditedPlan(plan), new: null });
        return plan;
      });
      if (!(removed instanceof Failure)) book.forgetChanged({ planId: id });
      return removed;
    },

    customerPricing,

    /** Puts a customer on a plan (`planId` null: none) and/or replaces its own overrides; what is not given stays. */
    async setCustomerPricing(
      customerId: string,
      change: { planId?: string | null; overrides?: PriceOverride[]; actor?: string },
    ): Promise<CustomerPricing | Failure> {
      const invalidInput = check({ overrides: change.overrides ?? [] }, false);
      if (invalidInput) return invalidInput;
      const outcome = await db.transaction(async (trx) => {
        const before = await repo.customerPricing(trx, customerId, true);
        if (!before) return new Failure(CustomerError.CustomerNotFound, 'No customer with this id.');
        const planId = change.planId === undefined ? before.plan_id : change.planId;
        // The plan row's lock keeps it from being deleted before this commits.
        if (planId && planId !== before.plan_id && !(await repo.findPlan(trx, planId, true))) return notFound();
        const overrides = change.overrides === undefined ? (before.price_overrides ?? []) : normalised(change.overrides);
        await repo.setCustomerPricing(trx, customerId, planId, overrides);
        await repo.audit(trx, {
          subjectType: 'customer',
          subjectId: customerId,
          action: 'updated',
          actor: change.actor ?? 'admin',
          old: { plan_id: before.plan_id, overrides: before.price_overrides ?? [] },
          new: { plan_id: planId, overrides },
        });
        return undefined;
      });
      if (outcome instanceof Failure) return outcome;
      deps.customers.forgetChanged({ customerId }); // its keys carry the plan id and overrides
      return (await customerPricing(customerId)) as CustomerPricing;
    },

    audit: (page: { subjectId?: string; limit: number; before?: bigint }) => repo.auditList(db, page),

    /**
     * Every model the catalogue serves now as a customer (`customerId`) or a plan's customers
     * (`planId`) would buy it, or at list prices with neither: for operators, beside route costs.
     */
    async prices(whose: { planId?: string; customerId?: string }): Promise<ResolvedModel[] | Failure> {
      let pricing = { customerId: whose.customerId ?? '', planId: whose.planId ?? null, overrides: [] as PriceOverride[] };
      if (whose.customerId) {
        const stored = await customerPricing(whose.customerId);
        if (stored instanceof Failure) return stored;
        pricing = { customerId: whose.customerId, planId: stored.plan?.id ?? null, overrides: stored.overrides };
      } else if (whose.planId && !(await repo.findPlan(db, whose.planId))) return notFound();
      const models = [...deps.catalogue.current().models.values()].filter((m) => !m.retired && m.routes.length > 0);
      return Promise.all(models.map((model) => book.pricedFor(pricing, model)));
    },
  };
}

export type Plans = ReturnType<typeof createPlans>;
