// The second half of reconciliation: every settled request and task was charged what its usage
// cost. Each settle, charge and true-up entry records what it was priced from (`purpose.priced`,
// src/pricing/priced.ts); this prices it again at the entry's frozen price version, with the same
// functions, and proves priced = posted + debt + free units' value + what an operator waived.
// A posting short of its priced usage (an amount dropped) or above it is named with its request or
// task id. Bounded: it reads a window of the journal (`since`, `until`), page by page along the
// index of charging entries, and keeps only the differences it reports.
import type { Knex } from 'knex';
import { pricedCost, readPriced } from '../pricing/priced.ts';
import { waivedOn } from './owed.ts';
import type { EntryRow } from './repo.ts';

const CHARGING = ['settle', 'charge', 'true_up'] as const;
const PAGE = 1_000;

export interface PricedDifference {
  /** The request id or video task id. */
  ref: string;
  customerId: string;
  /** What the usage costs at its price version; null when it cannot be priced again (`unpriced`). */
  priced: bigint | null;
  charged: bigint;
  debt: bigint;
  freeAmount: bigint;
  waived: bigint;
  /** priced - (charged + debt + free amount + waived): positive is under-charged. */
  difference: bigint;
  reason: 'under_charged' | 'over_charged' | 'unpriced';
}

export interface PricedCheck {
  since: Date;
  until: Date;
  /** Requests and tasks checked. */
  checked: number;
  /** The first differences found (at most `limit`). */
  differences: PricedDifference[];
  /** How many differences there were in all. */
  differenceCount: number;
  /** Requests and tasks charged before entries recorded what they were priced from: not checked. */
  legacy: number;
}

/** The request or task an entry belongs to: its reference without the kind (`charge:req_1` -> `req_1`). */
const refOf = (reference: string): string => reference.slice(reference.indexOf(':') + 1);

const REF = `substr(e.reference, strpos(e.reference, ':') + 1)`;

/**
 * One page of the window's requests and tasks, each at its first charging entry inside the window
 * (a true-up that lands later is summed with it, not checked again), in (posted_at, id) order: the
 * time each was written, which the journal's windows use (src/db/watermark.ts).
 * Timestamps travel as text: a JavaScript Date would drop their microseconds.
 */
const PAGE_SQL = `
  select e.id::text as id, e.reference, e.posted_at::text as at from ledger_entries e
   where e.kind in ('settle', 'charge', 'true_up') and e.posted_at >= ?::timestamptz and e.posted_at < ?::timestamptz
     and (e.posted_at, e.id) > (?::timestamptz, ?::bigint)
     and not exists (
       select 1 from ledger_entries o
        where o.reference in ('settle:' || ${REF}, 'charge:' || ${REF}, 'true_up:' || ${REF})
          and o.posted_at >= ?::timestamptz and (o.posted_at, o.id) < (e.posted_at, e.id))
   order by e.posted_at, e.id limit ${PAGE}`;

/**
 * The last journal entry written before entries recorded what they were priced from (the
 * migration that started it kept its id): a request or task whose entries are all at or below it
 * cannot be priced again and is counted apart (`legacy`), never as a difference.
 */
async function pricedSince(db: Knex): Promise<bigint> {
  const row = await db('ledger_marks').where({ name: 'priced_records_from' }).first<{ entry_id: string | bigint } | undefined>('entry_id');
  return BigInt(row?.entry_id ?? 0);
}

export async function checkPriced(db: Knex, window: { since: Date; until: Date; limit?: number }): Promise<PricedCheck> {
  const limit = window.limit ?? 100;
  const prices = new Map<string, unknown>();
  const result: PricedCheck = { since: window.since, until: window.until, checked: 0, differences: [], differenceCount: 0, legacy: 0 };
  const legacyUpTo = await pricedSince(db);
  const since = window.since.toISOString();
  let after = { at: '-infinity', id: '0' };
  for (;;) {
    const { rows: page } = await db.raw<{ rows: Array<{ id: string; reference: string; at: string }> }>(PAGE_SQL, [
      since,
      window.until.toISOString(),
      after.at,
      after.id,
      since,
    ]);
    if (page.length === 0) return result;
    after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
    const refs = page.map((e) => refOf(e.reference));
    const entries: EntryRow[] = await db('ledger_entries')
      .whereIn(
        'reference',
        refs.flatMap((ref) => CHARGING.map((kind) => `${kind}:${ref}`)),
      )
      .orderBy('id');
    const groups = groupByRef(entries);
    for (const ref of refs) {
      const group = groups.get(ref)!;
      if (group.every((e) => BigInt(e.id) <= legacyUpTo && readPriced(e.purpose?.priced) === undefined)) {
        result.legacy++;
        continue;
      }
      result.checked++;
      const difference = await differenceOf(db, prices, ref, group);
      if (!difference) continue;
      result.differenceCount++;
      if (result.differences.length < limit) result.differences.push(difference);
    }
    if (page.length < PAGE) return result;
  }
}

function groupByRef(entries: EntryRow[]): Map<string, EntryRow[]> {
  const groups = new Map<string, EntryRow[]>();
  for (const entry of entries) {
    const ref = refOf(entry.reference);
    groups.set(ref, [...(groups.get(ref) ?? []), entry]);
  }
  return groups;
}

/** The difference for one request or task, or undefined when it balances. */
async function differenceOf(db: Knex, prices: Map<string, unknown>, ref: string, group: EntryRow[]): Promise<PricedDifference | undefined> {
  const sum = (pick: (e: EntryRow) => bigint) => group.reduce((total, e) => total + pick(e), 0n);
  const parts = {
    charged: sum((e) => BigInt(e.amount)),
    debt: sum((e) => BigInt(e.debt_delta)),
    freeAmount: sum((e) => BigInt(e.free_amount)),
    waived: sum(waivedOn),
  };
  // The last word on what was delivered: a late report's true-up over the floor before it.
  const last = [...group].reverse().find((e) => readPriced(e.purpose?.priced) !== undefined);
  const versionId = last ? (last.price_version_id ?? group.find((e) => e.price_version_id !== null)?.price_version_id ?? null) : null;
  const priced = last ? pricedCost(readPriced(last.purpose.priced)!, await priceOf(db, prices, versionId)) : undefined;
  const accounted = parts.charged + parts.debt + parts.freeAmount + parts.waived;
  if (priced === accounted) return undefined;
  const base = { ref, customerId: group[0]!.customer_id, ...parts };
  if (priced === undefined) return { ...base, priced: null, difference: 0n, reason: 'unpriced' };
  return { ...base, priced, difference: priced - accounted, reason: priced > accounted ? 'under_charged' : 'over_charged' };
}

async function priceOf(db: Knex, prices: Map<string, unknown>, versionId: bigint | string | null): Promise<unknown> {
  if (versionId === null) return undefined;
  const key = String(versionId);
  if (!prices.has(key)) prices.set(key, (await db('price_versions').where({ id: key }).first('price'))?.price);
  return prices.get(key);
}
