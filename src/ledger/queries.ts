// Reading the ledger: balances, the journal, reservations, and the reconciliation proof.
import type { LedgerContext } from './context.ts';
import { LedgerError } from './errors.ts';
import { customerExists, type EntryRow, type ReservationRow } from './repo.ts';

export interface Balance {
  credits: bigint;
  debits: bigint;
  reserved: bigint;
  available: bigint;
  /** Delivered usage the balance could not cover (src/ledger/owed.ts). */
  debt: bigint;
}

export interface ReconciliationMismatch {
  customer_id: string;
  column: 'credits_posted' | 'debits_posted' | 'debits_pending' | 'pending_reservations' | 'debt';
  wallet: bigint;
  expected: bigint;
}

export async function balance(ctx: LedgerContext, customerId: string): Promise<Balance | LedgerError> {
  const wallet = await ctx
    .db('wallets')
    .where({ customer_id: customerId })
    .first<{ credits_posted: bigint; debits_posted: bigint; debits_pending: bigint; debt: bigint } | undefined>();
  if (!wallet && !(await customerExists(ctx.db, customerId))) return LedgerError.CustomerNotFound;
  const credits = wallet?.credits_posted ?? 0n;
  const debits = wallet?.debits_posted ?? 0n;
  const reserved = wallet?.debits_pending ?? 0n;
  return { credits, debits, reserved, available: credits - debits - reserved, debt: BigInt(wallet?.debt ?? 0n) };
}

/** Newest first; pass the last id seen as `before` for the next page. */
export async function journal(
  ctx: LedgerContext,
  customerId: string,
  { limit, before }: { limit: number; before?: bigint },
): Promise<{ entries: EntryRow[]; hasMore: boolean } | LedgerError> {
  if (!(await customerExists(ctx.db, customerId))) return LedgerError.CustomerNotFound;
  const rows: EntryRow[] = await ctx
    .db('ledger_entries')
    .where({ customer_id: customerId })
    .modify((q) => (before === undefined ? q : q.where('id', '<', before.toString())))
    .orderBy('id', 'desc')
    .limit(limit + 1);
  return { entries: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** How many customers owe debt, and how much in all. */
export async function debtOutstanding(ctx: LedgerContext): Promise<{ customers: number; amount: bigint }> {
  const [row] = await ctx.db('wallets').where('debt', '>', 0).select(ctx.db.raw('count(*) as customers'), ctx.db.raw('coalesce(sum(debt), 0)::text as amount'));
  return { customers: Number((row as { customers?: unknown })?.customers ?? 0), amount: BigInt(String((row as { amount?: unknown })?.amount ?? '0')) };
}

export async function walletCount(ctx: LedgerContext): Promise<number> {
  const [row] = await ctx.db('wallets').count<Array<{ n: bigint | string | number }>>('* as n');
  return Number(row?.n ?? 0);
}

export async function reconcile(ctx: LedgerContext): Promise<ReconciliationMismatch[]> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ customer_id: string; column: ReconciliationMismatch['column']; wallet: string; expected: string }> }>(
    RECONCILE_SQL,
  );
  return rows.map((r) => ({ customer_id: r.customer_id, column: r.column, wallet: BigInt(r.wallet), expected: BigInt(r.expected) }));
}

export interface ReservationFilter {
  status?: ReservationRow['status'];
  customerId?: string;
  /** Only request holds whose owning process stopped heartbeating this many seconds ago. */
  staleSeconds?: number;
  limit: number;
  before?: string;
}

/** Request holds and grants whose owner is gone: no live process heartbeats for them. */
export const STALE_HOLD_CONDITION = `r.status = 'pending' and r.kind in ('request', 'grant') and r.created_at < now() - (? * interval '1 second')
  and not exists (select 1 from gateway_instances i where i.id = r.owner and i.stopped_at is null and i.heartbeat_at > now() - (? * interval '1 second'))`;

/** How many request holds outlived their process, how much they hold, and some of their refs. */
export async function staleHolds(ctx: LedgerContext, staleSeconds: number): Promise<{ count: number; amount: bigint; refs: string[] }> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ count: string | number; amount: string | null; refs: string[] | null }> }>(
    `select count(*) as count, sum(r.amount)::text as amount, (array_agg(r.ref order by r.created_at))[1:20] as refs
       from reservations r where ${STALE_HOLD_CONDITION}`,
    [staleSeconds, staleSeconds],
  );
  const row = rows[0];
  return { count: Number(row?.count ?? 0), amount: BigInt(row?.amount ?? '0'), refs: row?.refs ?? [] };
}

/** Whether each owner heartbeated within `staleSeconds`. */
export async function liveOwners(ctx: LedgerContext, owners: string[], staleSeconds: number): Promise<Set<string>> {
  if (owners.length === 0) return new Set();
  const rows: Array<{ id: string }> = await ctx
    .db('gateway_instances')
    .whereIn('id', owners)
    .whereNull('stopped_at')
    .whereRaw(`heartbeat_at > now() - (? * interval '1 second')`, [staleSeconds])
    .select('id');
  return new Set(rows.map((r) => r.id));
}

export async function listReservations(ctx: LedgerContext, filter: ReservationFilter): Promise<{ rows: ReservationRow[]; hasMore: boolean }> {
  const rows: ReservationRow[] = await ctx
    .db('reservations as r')
    .modify((q) => {
      if (filter.status) q.where('r.status', filter.status);
      if (filter.customerId) q.where('r.customer_id', filter.customerId);
      if (filter.before) q.where('r.ref', '<', filter.before);
      if (filter.staleSeconds !== undefined) q.whereRaw(STALE_HOLD_CONDITION, [filter.staleSeconds, filter.staleSeconds]);
    })
    .orderBy('r.ref', 'desc')
    .limit(filter.limit + 1)
    .select('r.*');
  return { rows: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
}

/** Every wallet column must equal the sum of its journal deltas, and pending the open reservations. */
const RECONCILE_SQL = `
with sums as (
  select w.customer_id,
         w.credits_posted, w.debits_posted, w.debits_pending, w.debt,
         coalesce((select sum(debt_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as debt_expected,
         coalesce((select sum(credits_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as credits_expected,
         coalesce((select sum(debits_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as debits_expected,
         coalesce((select sum(pending_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as pending_expected,
         coalesce((select sum(amount) from reservations r where r.customer_id = w.customer_id and r.status = 'pending'), 0)::bigint as open_reservations
  from wallets w
)
select customer_id, 'credits_posted' as column, credits_posted::text as wallet, credits_expected::text as expected from sums where credits_posted <> credits_expected
union all
select customer_id, 'debits_posted', debits_posted::text, debits_expected::text from sums where debits_posted <> debits_expected
union all
select customer_id, 'debits_pending', debits_pending::text, pending_expected::text from sums where debits_pending <> pending_expected
union all
select customer_id, 'pending_reservations', debits_pending::text, open_reservations::text from sums where debits_pending <> open_reservations
union all
select customer_id, 'debt', debt::text, debt_expected::text from sums where debt <> debt_expected
order by 1, 2`;
