// Price plans, customers' pricing and the audit of both: rows in and out. Writes run inside the
// caller's transaction, so a change and its audit row commit together.
import type { Knex } from 'knex';
import type { PriceOverride, PricePlan } from '../../pricing/plans.ts';

export interface PlanRecord extends PricePlan {
  description: string | null;
  /** Customers on the plan now. */
  customers: number;
  createdAt: Date;
  updatedAt: Date;
}

interface PlanRow {
  id: string;
  name: string;
  description: string | null;
  multiplier: string | null;
  overrides: PriceOverride[];
  version: number;
  created_at: Date;
  updated_at: Date;
  customers?: string | number | bigint;
}

const toPlan = (row: PlanRow): PlanRecord => ({
  id: row.id,
  name: row.name,
  description: row.description,
  multiplier: row.multiplier,
  overrides: row.overrides ?? [],
  version: row.version,
  customers: Number(row.customers ?? 0),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

/** How a plan is kept in an audit row: what defines its prices. */
export const auditedPlan = (plan: Pick<PlanRecord, 'name' | 'description' | 'multiplier' | 'overrides' | 'version'>) => ({
  name: plan.name,
  description: plan.description,
  multiplier: plan.multiplier,
  overrides: plan.overrides,
  version: plan.version,
});

const withCustomers = (db: Knex) => db.raw('(select count(*) from customers c where c.plan_id = p.id) as customers');

export async function listPlans(db: Knex): Promise<PlanRecord[]> {
  const rows: PlanRow[] = await db('price_plans as p').select('p.*', withCustomers(db)).orderBy('p.name');
  return rows.map(toPlan);
}

export async function findPlan(db: Knex, id: string, lock = false): Promise<PlanRecord | undefined> {
  const row: PlanRow | undefined = await db('price_plans as p')
    .where('p.id', id)
    .select('p.*', withCustomers(db))
    .modify((q) => {
      if (lock) q.forUpdate();
    })
    .first();
  return row && toPlan(row);
}

export async function insertPlan(trx: Knex.Transaction, plan: Omit<PricePlan, 'version'> & { description: string | null }): Promise<PlanRecord> {
  const [row] = await trx('price_plans')
    .insert({
      id: plan.id,
      name: plan.name,
      description: plan.description,
      multiplier: plan.multiplier,
      overrides: JSON.stringify(plan.overrides),
    })
    .returning('*');
  return toPlan(row as PlanRow);
}

export async function updatePlan(
  trx: Knex.Transaction,
  id: string,
  change: Partial<Pick<PlanRecord, 'name' | 'description' | 'multiplier' | 'overrides'>>,
): Promise<PlanRecord> {
  const [row] = await trx('price_plans')
    .where({ id })
    .update({
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.multiplier !== undefined ? { multiplier: change.multiplier } : {}),
      ...(change.overrides !== undefined ? { overrides: JSON.stringify(change.overrides) } : {}),
      version: trx.raw('version + 1'),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  return toPlan(row as PlanRow);
}

export const deletePlan = (trx: Knex.Transaction, id: string) => trx('price_plans').where({ id }).delete();

export interface CustomerPricingRow {
  id: string;
  plan_id: string | null;
  price_overrides: PriceOverride[] | null;
}

export async function customerPricing(db: Knex, customerId: string, lock = false): Promise<CustomerPricingRow | undefined> {
  return db('customers')
    .where({ id: customerId })
    .modify((q) => {
      if (lock) q.forUpdate();
    })
    .first('id', 'plan_id', 'price_overrides');
}

export async function setCustomerPricing(trx: Knex.Transaction, customerId: string, planId: string | null, overrides: PriceOverride[]): Promise<void> {
  await trx('customers')
    .where({ id: customerId })
    .update({ plan_id: planId, price_overrides: overrides.length > 0 ? JSON.stringify(overrides) : null });
}

export interface AuditRecord {
  id: bigint;
  subjectType: 'plan' | 'customer';
  subjectId: string;
  action: 'created' | 'updated' | 'deleted';
  actor: string;
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
  createdAt: Date;
}

export async function audit(trx: Knex.Transaction, record: Omit<AuditRecord, 'id' | 'createdAt'>): Promise<void> {
  await trx('pricing_audit').insert({
    subject_type: record.subjectType,
    subject_id: record.subjectId,
    action: record.action,
    actor: record.actor,
    old: record.old === null ? null : JSON.stringify(record.old),
    new: record.new === null ? null : JSON.stringify(record.new),
  });
}

/** Newest first; `before` is the last id of the previous page. */
export async function auditList(db: Knex, page: { subjectId?: string; limit: number; before?: bigint }): Promise<AuditRecord[]> {
  const rows: Array<{
    id: bigint;
    subject_type: AuditRecord['subjectType'];
    subject_id: string;
    action: AuditRecord['action'];
    actor: string;
    old: AuditRecord['old'];
    new: AuditRecord['new'];
    created_at: Date;
  }> = await db('pricing_audit')
    .modify((q) => {
      if (page.subjectId) q.where({ subject_id: page.subjectId });
      if (page.before !== undefined) q.where('id', '<', page.before.toString());
    })
    .orderBy('id', 'desc')
    .limit(page.limit);
  return rows.map((r) => ({
    id: BigInt(r.id),
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    action: r.action,
    actor: r.actor,
    old: r.old,
    new: r.new,
    createdAt: new Date(r.created_at),
  }));
}
