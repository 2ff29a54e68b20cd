// A receipt per request and per video task: what the provider reported, the price version and unit
// prices it was priced at, what was held and what became of the hold, the charge, the free units
// spent, and whether usage was measured or estimated (and why). Assembled from the request's log
// row (or the task's row) and its journal entries; the journal is what the money says.
import type { Knex } from 'knex';
import type { EntryRow } from '../../ledger/repo.ts';
import type { AppliedTier } from '../../pricing/tiers.ts';
import { isBillable } from '../../logs/billable.ts';
import type { RequestLogRow } from '../../logs/request-logs.ts';
import { Failure } from '../failure.ts';
import type { VideoTaskRow } from '../videos/kind.ts';
import { AccountError } from '../account/errors.ts';
import { waivedOn } from '../../ledger/owed.ts';
import { entriesOf, priceVersion, requestLog, videoTask, type PriceVersionRow } from './receipt-repo.ts';

export type HoldOutcome = 'settled' | 'released' | 'pending' | 'none';

export interface Receipt {
  id: string;
  type: 'request' | 'video_task';
  customerId: string | null;
  keyId: string | null;
  endpoint: string | null;
  model: string | null;
  /** The model name the client sent (an alias, a name a pattern matched); null for a task. */
  requestedModel: string | null;
  /** The output limit the gateway lowered to a substitute's cap: asked and sent. */
  maxTokensCapped: { requested: number; sent: number } | null;
  /** The HTTP status of a request; null for a task. */
  httpStatus: number | null;
  /** A task's status; null for a request. */
  taskStatus: string | null;
  createdAt: Date;
  settledAt: Date | null;
  /** False: a request that cannot be charged (src/logs/billable.ts), free and never settled. */
  billable: boolean;
  price: PriceVersionRow | undefined;
  reported: Record<string, unknown> | null;
  billed: Record<string, unknown>;
  /** The long-context tier the usage was priced at (src/pricing/tiers.ts); null: the base prices. */
  priceTier: AppliedTier | null;
  estimated: boolean;
  estimateReason: string | null;
  hold: { source: 'grant' | 'reservation' | 'video_task' | null; amount: bigint | null; freeUnitsHeld: bigint; outcome: HoldOutcome; released: bigint | null };
  charge: { posted: bigint; fromHold: bigint; fromBalance: bigint; debt: bigint; waived: bigint; trueUp: bigint; freeUnits: bigint; freeAmount: bigint };
  journal: EntryRow[];
  /** Operators only. */
  provider: string | null;
  upstreamRequestId: string | null;
}

const CHARGING = new Set(['charge', 'settle', 'true_up']);

/**
 * What an entry posted from the hold: a settle or charge moves the hold's pending to debits up to
 * what it charged; the rest of its debits came from the available balance (a true-up: all of it).
 */
const fromHoldOf = (e: EntryRow): bigint => {
  const held = -BigInt(e.pending_delta);
  const posted = BigInt(e.debits_delta);
  return e.kind === 'true_up' || held <= 0n ? 0n : posted < held ? posted : held;
};

/** What the journal says was charged: from the hold, from the balance, debt recorded, waived, the late difference, free units. */
function chargeOf(entries: EntryRow[]): Receipt['charge'] {
  const charging = entries.filter((e) => CHARGING.has(e.kind));
  const sum = (pick: (e: EntryRow) => bigint, rows = charging) => rows.reduce((total, e) => total + BigInt(pick(e)), 0n);
  return {
    posted: sum((e) => e.debits_delta),
    fromHold: sum(fromHoldOf),
    fromBalance: sum((e) => BigInt(e.debits_delta) - fromHoldOf(e)),
    waived: sum(waivedOn),
    debt: sum((e) => e.debt_delta),
    trueUp: sum(
      (e) => BigInt(e.debits_delta) + BigInt(e.debt_delta),
      charging.filter((e) => e.kind === 'true_up'),
    ),
    freeUnits: sum((e) => e.free_units),
    freeAmount: sum((e) => e.free_amount),
  };
}

function outcomeOf(entries: EntryRow[], held: boolean): HoldOutcome {
  if (entries.some((e) => e.kind === 'settle' || e.kind === 'charge')) return 'settled';
  if (entries.some((e) => e.kind === 'release')) return 'released';
  if (entries.some((e) => e.kind === 'reserve')) return 'pending';
  // A draw from a grant that delivered nothing ends in memory: no journal row, nothing charged.
  return held ? 'released' : 'none';
}

const settledAt = (entries: EntryRow[]): Date | null => {
  const last = entries.filter((e) => e.kind !== 'reserve').at(-1);
  return last ? new Date(last.created_at) : null;
};

const big = (value: bigint | string | null): bigint | null => (value === null ? null : BigInt(value));

async function requestReceipt(db: Knex, row: RequestLogRow): Promise<Receipt> {
  const entries = await entriesOf(db, row.request_id);
  const reserve = entries.find((e) => e.kind === 'reserve');
  const holdAmount = big(row.hold_amount) ?? (reserve ? BigInt(reserve.amount) : null);
  const outcome = outcomeOf(entries, holdAmount !== null);
  const charge = chargeOf(entries);
  const versionId = big(row.price_version_id) ?? entries.find((e) => e.price_version_id !== null)?.price_version_id ?? null;
  const { price_tier: priceTier, ...detail } = row.usage_detail ?? {};
  return {
    id: row.request_id,
    type: 'request',
    customerId: row.customer_id,
    keyId: row.key_id,
    endpoint: row.endpoint,
    model: row.model,
    requestedModel: row.requested_model ?? null,
    maxTokensCapped:
      row.max_tokens_capped === null || row.max_tokens_capped === undefined
        ? null
        : { requested: row.max_tokens_requested ?? row.max_tokens_capped, sent: row.max_tokens_capped },
    httpStatus: row.status,
    taskStatus: null,
    createdAt: new Date(row.created_at),
    settledAt: settledAt(entries),
    billable: isBillable(row),
    price: await priceVersion(db, versionId === null ? null : BigInt(versionId)),
    reported: row.upstream_usage ?? null,
    billed: {
      input_tokens: row.input_tokens === null ? null : Number(row.input_tokens),
      output_tokens: row.output_tokens === null ? null : Number(row.output_tokens),
      cache_read_tokens: row.cache_read_tokens === null ? null : Number(row.cache_read_tokens),
      cache_write_tokens: row.cache_write_tokens === null ? null : Number(row.cache_write_tokens),
      ...detail,
    },
    priceTier: (priceTier as AppliedTier | undefined) ?? null,
    estimated: row.usage_estimated,
    estimateReason: row.estimate_reason ?? (row.usage_estimated && row.swept ? 'owner_gone' : null),
    hold: {
      source: row.hold_source ?? (reserve ? 'reservation' : null),
      amount: holdAmount,
      freeUnitsHeld: big(row.free_units_held) ?? (reserve ? BigInt(reserve.free_units) : 0n),
      outcome,
      released: releasedOf(outcome, holdAmount, charge),
    },
    charge,
    journal: entries,
    provider: row.provider,
    upstreamRequestId: row.upstream_request_id,
  };
}

/** What of the hold went back to the balance (a settle posts its charge and releases the rest). */
function releasedOf(outcome: HoldOutcome, held: bigint | null, charge: Receipt['charge']): bigint | null {
  if (held === null || outcome === 'pending' || outcome === 'none') return null;
  if (outcome === 'released') return held;
  const fromHold = charge.posted - charge.trueUp;
  return held > fromHold ? held - fromHold : 0n;
}

async function taskReceipt(db: Knex, task: VideoTaskRow): Promise<Receipt> {
  const entries = await entriesOf(db, task.id);
  const reserve = entries.find((e) => e.kind === 'reserve');
  const settle = entries.find((e) => e.kind === 'settle');
  const purpose = (settle?.purpose ?? {}) as { delivered_seconds?: string; resolved_by?: string; tier?: string };
  const outcome = outcomeOf(entries, true);
  const charge = chargeOf(entries);
  const held = reserve ? BigInt(reserve.amount) : BigInt(task.reserved);
  return {
    id: task.id,
    type: 'video_task',
    customerId: task.customer_id,
    keyId: task.key_id,
    endpoint: 'videos_create',
    model: task.model_id,
    requestedModel: null,
    maxTokensCapped: null,
    httpStatus: null,
    taskStatus: task.status,
    createdAt: new Date(task.created_at),
    settledAt: settledAt(entries),
    billable: true,
    price: await priceVersion(db, BigInt(task.price_version_id)),
    reported: purpose.delivered_seconds !== undefined ? { seconds: purpose.delivered_seconds, resolution: purpose.tier ?? task.billed_tier } : null,
    billed: {
      requested_seconds: task.request.seconds,
      requested_resolution: task.request.resolution,
      billed_seconds: task.billed_seconds,
      tier: task.billed_tier,
    },
    priceTier: null,
    // A task is billed by the output the provider confirmed; an operator's settle after review is its own figure.
    estimated: typeof purpose.resolved_by === 'string',
    estimateReason: typeof purpose.resolved_by === 'string' ? 'operator_settled' : null,
    hold: {
      source: 'video_task',
      amount: held,
      freeUnitsHeld: reserve ? BigInt(reserve.free_units) : 0n,
      outcome,
      released: releasedOf(outcome, held, charge),
    },
    charge,
    journal: entries,
    provider: task.provider_id,
    upstreamRequestId: null,
  };
}

/**
 * The receipt of a request id or a video task id (`vt_...`), the caller's own when `customerId`
 * is given; not found otherwise (another customer's id is not found either).
 */
export async function findReceipt(db: Knex, id: string, customerId?: string): Promise<Receipt | Failure> {
  const notFound = new Failure(
    AccountError.RequestNotFound,
    'No request or video task of yours with this id (a request has a receipt once its charge is final).',
    {
      param: 'request_id',
    },
  );
  if (id.startsWith('vt_')) {
    const task = await videoTask(db, id, customerId);
    return task ? taskReceipt(db, task) : notFound;
  }
  const row = await requestLog(db, id, customerId);
  return row ? requestReceipt(db, row) : notFound;
}
