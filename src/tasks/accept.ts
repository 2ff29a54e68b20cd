// Accepting a task: its row and its hold in one transaction, so a task is never without its hold
// nor a hold without its task. In the same transaction the queue decides whether it may go upstream
// now (submitting) or waits (queue.ts); only a kind that can send from its row ever waits.
import type { ResolvedProvider } from '../catalogue/types.ts';
import { LedgerError } from '../ledger/errors.ts';
import { KeyLimitAbort, LedgerAbort, type KeyLimitRefusal, type RateState, type ReserveInput } from '../ledger/service.ts';
import { DEFAULT_DEADLINE_MS, SUBMIT_LEASE_MS, type TaskContext } from './context.ts';
import { TaskStatus } from './model.ts';
import { admit } from './queue.ts';
import type { SubmittedTask } from './submit.ts';

export interface NewTask {
  /** Minted by the product (`vt_…`); also the hold's reference. */
  id: string;
  kind: string;
  customerId: string;
  keyId: string;
  modelId: string;
  provider: ResolvedProvider;
  upstreamModel: string;
  /** The kind's request snapshot (what it sends and bills by) and price snapshot, as JSON values. */
  request: unknown;
  price: unknown;
  priceVersionId: bigint;
  idempotencyKey?: string | null;
  requestHash: string;
  cancellable: boolean;
}

/** The hold, as the ledger takes it; its reference is the task id. */
export type TaskHold = Omit<ReserveInput, 'ref' | 'customerId' | 'kind'>;

export type Acceptance =
  /** `waits`: in the gateway's queue (nothing to send now); `rate`: the key's rate-limit state after it, when it has one. */
  | { accepted: true; waits: boolean; rate: RateState | null; task: SubmittedTask }
  | { accepted: false; reason: 'insufficient_funds' }
  | { accepted: false; reason: 'key_limit'; refusal: KeyLimitRefusal }
  /** The customer's Idempotency-Key was taken meanwhile (a concurrent create): read that task. */
  | { accepted: false; reason: 'idempotency_key_taken' };

export async function acceptTask(ctx: TaskContext, task: NewTask, hold: TaskHold): Promise<Acceptance> {
  const queues = Boolean(ctx.kinds.get(task.kind)?.submit);
  let waits = false;
  let rate: RateState | null = null;
  try {
    await ctx.db.transaction(async (trx) => {
      if (queues) ({ waits } = await admit(trx, task.provider, task.customerId));
      await trx('video_tasks').insert({
        id: task.id,
        kind: task.kind,
        customer_id: task.customerId,
        key_id: task.keyId,
        model_id: task.modelId,
        provider_id: task.provider.id,
        upstream_model: task.upstreamModel,
        status: waits ? TaskStatus.Waiting : TaskStatus.Submitting,
        queued_at: waits ? trx.fn.now() : null,
        request: JSON.stringify(task.request),
        price: JSON.stringify(task.price),
        price_version_id: task.priceVersionId.toString(),
        reserved: '0',
        idempotency_key: task.idempotencyKey ?? null,
        request_hash: task.requestHash,
        next_poll_at: waits ? null : new Date(Date.now() + SUBMIT_LEASE_MS),
        deadline_at: new Date(Date.now() + (ctx.deadlineMs ?? DEFAULT_DEADLINE_MS)),
        cancellable: task.cancellable,
      });
      const reserved = await ctx.ledger.reserveWithin(trx, { ...hold, ref: task.id, kind: 'video', customerId: task.customerId });
      rate = reserved.rate ?? null;
      await trx('video_tasks').where({ id: task.id }).update({ reserved: reserved.amount.toString() });
    });
  } catch (error) {
    if (error instanceof LedgerAbort && error.code === LedgerError.InsufficientFunds) return { accepted: false, reason: 'insufficient_funds' };
    if (error instanceof KeyLimitAbort) return { accepted: false, reason: 'key_limit', refusal: error.refusal };
    if ((error as { code?: string }).code === '23505' && task.idempotencyKey) return { accepted: false, reason: 'idempotency_key_taken' };
    throw error;
  }
  const row = { id: task.id, kind: task.kind, customer_id: task.customerId, model_id: task.modelId, upstream_model: task.upstreamModel };
  return { accepted: true, waits, rate, task: { ...row, request: task.request, price: task.price } };
}
