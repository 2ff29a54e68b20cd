// Video tasks: accept (validate, reserve and record in one transaction, then submit), show, cancel.
// Settlement by delivered output happens in the worker (worker.ts).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { randomBase62 } from '../../shared/ids.ts';
import type { Caller } from '../../customers/service.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
import { Failure } from '../failure.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { KeyLimitAbort, LedgerAbort, type Ledger, type RateState } from '../../ledger/service.ts';
import { keyLimitFailure } from '../limits/headers.ts';
import type { Logger } from '../../logger.ts';
import { videoLines } from '../../pricing/cost.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { videoAdapters } from './adapters.ts';
import { videoFailures } from './errors.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { findByIdempotencyKey, findTask, transition } from './repo.ts';
import { validateVideoRequest } from './validate.ts';
import { settleFromPoll } from './outcome.ts';

export interface VideoService {
  /** `rate`: the key's rate-limit state after this task, when the key has a rate limit. */
  create(input: { caller: Caller; body: Record<string, unknown>; idempotencyKey: string | undefined }): Promise<{ taskId: string; rate?: RateState | null } | Failure>;
  get(caller: Caller, taskId: string): Promise<VideoTaskRow | Failure>;
  cancel(caller: Caller, taskId: string): Promise<VideoTaskRow | Failure>;
}

export interface VideoServiceDeps {
  db: Knex;
  ledger: Ledger;
  discovery: DiscoveryService;
  logger: Logger;
  /** How long a task may take before it goes to review (default 48 h, Ark's own expiry). */
  deadlineMs?: number;
  pollIntervalMs?: number;
}

/** A submission unconfirmed after this long is treated as orphaned by its process (see worker). */
export const SUBMIT_LEASE_MS = 60_000;

const hashOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export function createVideoService(deps: VideoServiceDeps): VideoService {
  const { db, ledger } = deps;
  const pollMs = deps.pollIntervalMs ?? 5_000;

  async function replay(existing: VideoTaskRow, hash: string): Promise<{ taskId: string } | Failure> {
    if (existing.request_hash !== hash) return videoFailures.keyReused();
    if (existing.status === VideoStatus.Submitting && Date.now() - new Date(existing.created_at).getTime() < SUBMIT_LEASE_MS) return videoFailures.keyInFlight();
    return { taskId: existing.id };
  }

  return {
    async create({ caller, body, idempotencyKey }) {
      const model = typeof body.model === 'string' ? deps.discovery.findModel(caller, body.model) : undefined;
      if (!model) return videoFailures.modelNotFound(String(body.model));
      if (model.group !== 'video' || !model.video) return videoFailures.notVideo(model.id, model.group);
      const request = validateVideoRequest(body, model);
      if ('param' in request) return videoFailures.invalid(request.param, request.message);
      const route = model.routes.find((r) => r.provider.baseUrl && videoAdapters[r.provider.protocol]);
      if (!route) return videoFailures.noProvider(model.id);
      const hash = hashOf(request);
      if (idempotencyKey) {
        const existing = await findByIdempotencyKey(db, caller.customerId, idempotencyKey);
        if (existing) return replay(existing, hash);
      }

      const price = model.price as VideoPrice;
      const taskId = `vt_${randomBase62(24)}`;
      let rate: RateState | null = null;
      try {
        await db.transaction(async (trx) => {
          await trx('video_tasks').insert({
            id: taskId,
            customer_id: caller.customerId,
            key_id: caller.keyId,
            model_id: model.id,
            provider_id: route.provider.id,
            upstream_model: route.upstreamModel,
            status: VideoStatus.Submitting,
            request: JSON.stringify(request),
            price: JSON.stringify({ per_second: price.per_second, currency: deps.discovery.currency(), version: model.priceVersion.version }),
            price_version_id: model.priceVersion.id.toString(),
            reserved: '0',
            idempotency_key: idempotencyKey ?? null,
            request_hash: hash,
            next_poll_at: new Date(Date.now() + SUBMIT_LEASE_MS),
            deadline_at: new Date(Date.now() + (deps.deadlineMs ?? 48 * 3_600_000)),
          });
          const reserved = await ledger.reserveWithin(trx, {
            ref: taskId,
            kind: 'video',
            customerId: caller.customerId,
            bound: { lines: videoLines(price.per_second[request.resolution]!, request.seconds) },
            purpose: { video_task_id: taskId, model: model.id, key_id: caller.keyId },
            priceVersionId: model.priceVersion.id,
            ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
            limits: caller.limited,
          });
          rate = reserved.rate ?? null;
          await trx('video_tasks').where({ id: taskId }).update({ reserved: reserved.amount.toString() });
        });
      } catch (error) {
        if (error instanceof LedgerAbort && error.code === LedgerError.InsufficientFunds) return videoFailures.insufficientBalance();
        if (error instanceof KeyLimitAbort) return keyLimitFailure(error.refusal, 'openai');
        if ((error as { code?: string }).code === '23505' && idempotencyKey) {
          const existing = await findByIdempotencyKey(db, caller.customerId, idempotencyKey);
          if (existing) return replay(existing, hash);
        }
        throw error;
      }

      const submitted = await videoAdapters[route.provider.protocol]!.submit(route.provider, route.upstreamModel, request);
      if (submitted instanceof UpstreamError) {
        if (submitted.kind === 'timeout' || submitted.kind === 'protocol') {
          // The provider may have accepted it: never resubmit, never release blindly.
          await transition(db, taskId, VideoStatus.Submitting, { status: VideoStatus.Review, error: JSON.stringify({ code: 'submission_unconfirmed', message: 'The provider did not confirm the submission.' }), next_poll_at: null });
          return { taskId, rate };
        }
        await ledger.release({ ref: taskId, purpose: { reason: `upstream refused: ${submitted.status ?? submitted.kind}` } });
        await transition(db, taskId, VideoStatus.Submitting, { status: VideoStatus.Failed, error: JSON.stringify({ code: 'upstream_rejected', message: 'The provider rejected the task.' }), next_poll_at: null, completed_at: db.fn.now() });
        return videoFailures.upstreamRefused(submitted);
      }
      await transition(db, taskId, VideoStatus.Submitting, { status: VideoStatus.Queued, upstream_task_id: submitted.upstreamId, next_poll_at: new Date(Date.now() + pollMs) });
      return { taskId, rate };
    },

    async get(caller, taskId) {
      const task = await findTask(db, taskId);
      return task && task.customer_id === caller.customerId ? task : videoFailures.taskNotFound();
    },

    async cancel(caller, taskId) {
      const task = await findTask(db, taskId);
      if (!task || task.customer_id !== caller.customerId) return videoFailures.taskNotFound();
      const model = deps.discovery.findModel(caller, task.model_id);
      const cancellable = model?.video?.cancellable ?? false;
      if (!cancellable) return videoFailures.cancelNotSupported(task.model_id);
      if (task.status !== VideoStatus.Queued && task.status !== VideoStatus.InProgress) return videoFailures.notCancellable(task.status);
      const provider = model!.routes.find((r) => r.provider.id === task.provider_id)?.provider;
      const adapter = provider ? videoAdapters[provider.protocol] : undefined;
      if (!provider || !adapter || !task.upstream_task_id) return videoFailures.notCancellable(task.status);
      // Look first: a task that already finished is settled as finished, not cancelled.
      const before = await adapter.poll(provider, task.upstream_task_id);
      if (before instanceof UpstreamError) return videoFailures.upstreamUnreachable('the task goes on.');
      if (before.status !== 'queued' && before.status !== 'in_progress') {
        await settleFromPoll({ db, ledger, logger: deps.logger }, task, before, pollMs);
        return (await findTask(db, taskId))!;
      }
      const answer = await adapter.cancel(provider, task.upstream_task_id);
      if (answer instanceof UpstreamError) return videoFailures.upstreamUnreachable('it could not be asked to cancel; the task goes on.');
      if (answer === 'cancelled') {
        // Only now, with the provider's confirmation, does the reservation move.
        const released = await ledger.release({ ref: taskId, purpose: { reason: 'cancelled by the customer' } });
        if (released !== LedgerError.AlreadySettled) await transition(db, taskId, [VideoStatus.Queued, VideoStatus.InProgress], { status: VideoStatus.Cancelled, upstream_status: 'cancelled', next_poll_at: null, completed_at: db.fn.now() });
      } else {
        await settleFromPoll({ db, ledger, logger: deps.logger }, task, before, pollMs); // refused: the task goes on
      }
      return (await findTask(db, taskId))!;
    },
  };
}
