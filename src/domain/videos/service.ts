// Video tasks: accept (validate, reserve and record in one transaction, then submit), show, list,
// cancel, download (content.ts). Settlement by delivered output happens in the worker (worker.ts).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { randomBase62 } from '../../shared/ids.ts';
import type { Caller } from '../../customers/service.ts';
import type { CatalogueStore } from '../../catalogue/store.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
import { pricedTier } from '../../catalogue/video-tiers.ts';
import { isVideoProtocol, type VideoProtocol } from '../../catalogue/video-protocols.ts';
import { Failure } from '../failure.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { KeyLimitAbort, LedgerAbort, type Ledger, type RateState } from '../../ledger/service.ts';
import { keyLimitFailure } from '../limits/headers.ts';
import type { Logger } from '../../logger.ts';
import { videoLines } from '../../pricing/cost.ts';
import { routeCost } from '../../pricing/upstream-cost.ts';
import { UpstreamError } from '../../providers/types.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import type { Sink } from '../sink.ts';
import { streamContent, type ContentRequest } from './content.ts';
import { videoFailures } from './errors.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { settleFromPoll, type OutcomeDeps } from './outcome.ts';
import { admit, cancelWaiting, withPositions } from './queue.ts';
import { findByIdempotencyKey, findVideoTask as findTask, listTasks, transition } from './repo.ts';
import { SUBMIT_LEASE_MS, submitTask } from './submit.ts';
import { validateVideoRequest } from './validate.ts';

export interface VideoPage {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface VideoService {
  /** The accepted task (or the one an Idempotency-Key replays); `rate`: the key's rate-limit state after it, when the key has a rate limit. */
  create(input: {
    caller: Caller;
    body: Record<string, unknown>;
    idempotencyKey: string | undefined;
  }): Promise<{ task: VideoTaskRow; rate?: RateState | null } | Failure>;
  get(caller: Caller, taskId: string): Promise<VideoTaskRow | Failure>;
  /** The customer's tasks, one page. */
  list(caller: Caller, page: VideoPage): Promise<{ tasks: VideoTaskRow[]; hasMore: boolean } | Failure>;
  cancel(caller: Caller, taskId: string): Promise<VideoTaskRow | Failure>;
  /** Streams the file of a completed task to its creator through the sink (failures come before any byte). */
  content(caller: Caller, taskId: string, request: ContentRequest, sink: Sink): Promise<{ bytes: number } | Failure>;
  /** When a client should look at the task (or at its list) again: openai-poll-after-ms. */
  pollAfterMs(task?: VideoTaskRow): number;
}

export interface VideoServiceDeps {
  db: Knex;
  ledger: Ledger;
  discovery: DiscoveryService;
  /** Providers by id, for tasks whose model may since have left the catalogue. */
  catalogue: CatalogueStore;
  logger: Logger;
  /** How long a task may take before it goes to review (default 48 h, Ark's own expiry). */
  deadlineMs?: number;
  pollIntervalMs?: number;
  /** Told when a provider's concurrency refusal put a new task in the gateway's queue (metrics). */
  onRequeue?: (providerId: string) => void;
}

/** A task in review waits for an operator: clients need not look often. */
const REVIEW_POLL_AFTER_MS = 60_000;

const hashOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export function createVideoService(deps: VideoServiceDeps): VideoService {
  const { db, ledger } = deps;
  const pollMs = deps.pollIntervalMs ?? 5_000;

  const withRate = (replayed: VideoTaskRow | Failure) => (replayed instanceof Failure ? replayed : { task: replayed });

  function replay(existing: VideoTaskRow, hash: string): VideoTaskRow | Failure {
    if (existing.request_hash !== hash) return videoFailures.keyReused();
    // Still in its create request (a task dispatched from the queue is not: it was answered long ago).
    if (existing.status === VideoStatus.Submitting && !existing.queued_at && Date.now() - new Date(existing.created_at).getTime() < SUBMIT_LEASE_MS)
      return videoFailures.keyInFlight();
    return existing;
  }

  return {
    async create({ caller, body, idempotencyKey }) {
      // A model the key may reach but no enabled provider serves is a 503, not a 404.
      const catalogued = typeof body.model === 'string' ? deps.discovery.findCatalogued(caller, body.model) : undefined;
      if (!catalogued) {
        const retired = typeof body.model === 'string' ? deps.discovery.retirement(caller, body.model) : undefined;
        return retired ? passthroughFailures.modelRetired(retired) : videoFailures.modelNotFound(String(body.model));
      }
      const video = catalogued.video;
      if (catalogued.group !== 'video' || !video) return videoFailures.notVideo(catalogued.id, catalogued.group);
      const route = catalogued.routes.find((r) => r.provider.baseUrl && videoAdapters[r.provider.protocol] && isVideoProtocol(r.provider.protocol));
      if (!route) return videoFailures.noProvider(catalogued.id);
      // At the caller's prices, frozen with the task (its price and version) for however long it runs.
      const model = await deps.discovery.priced(caller, catalogued);
      const request = validateVideoRequest(body, model, route.provider.protocol as VideoProtocol);
      if ('param' in request) return videoFailures.invalid(request.param, request.message);
      const hash = hashOf(request);
      if (idempotencyKey) {
        const existing = await findByIdempotencyKey(db, caller.customerId, idempotencyKey);
        if (existing) return withRate(replay(existing, hash));
      }

      const price = model.price as VideoPrice;
      const taskId = `vt_${randomBase62(24)}`;
      let rate: RateState | null = null;
      let waits = false;
      try {
        await db.transaction(async (trx) => {
          ({ waits } = await admit(trx, route.provider, caller.customerId));
          await trx('video_tasks').insert({
            id: taskId,
            customer_id: caller.customerId,
            key_id: caller.keyId,
            model_id: model.id,
            provider_id: route.provider.id,
            upstream_model: route.upstreamModel,
            status: waits ? VideoStatus.Waiting : VideoStatus.Submitting,
            queued_at: waits ? trx.fn.now() : null,
            request: JSON.stringify(request),
            price: JSON.stringify({ per_second: price.per_second, currency: deps.discovery.currency(), version: model.priceVersion.version }),
            price_version_id: model.priceVersion.id.toString(),
            upstream_cost: JSON.stringify(routeCost(route)),
            reserved: '0',
            idempotency_key: idempotencyKey ?? null,
            request_hash: hash,
            next_poll_at: waits ? null : new Date(Date.now() + SUBMIT_LEASE_MS),
            deadline_at: new Date(Date.now() + (deps.deadlineMs ?? 48 * 3_600_000)),
            cancellable: video.cancellable,
          });
          const reserved = await ledger.reserveWithin(trx, {
            ref: taskId,
            kind: 'video',
            customerId: caller.customerId,
            bound: { lines: videoLines(price.per_second[pricedTier(price.per_second, request.resolution, request.generate_audio === true)]!, request.seconds) },
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
          if (existing) return withRate(replay(existing, hash));
        }
        throw error;
      }

      // Beyond the provider's limit (or behind others waiting): accepted, it waits at the gateway.
      if (!waits) {
        const task = { id: taskId, model_id: model.id, upstream_model: route.upstreamModel, request };
        const sent = await submitTask({ db, ledger, logger: deps.logger, pollMs, onRequeue: deps.onRequeue }, task, route.provider);
        if (sent.kind === 'refused') return sent.failure;
      }
      return { task: (await withPositions(db, [(await findTask(db, taskId))!]))[0]!, rate };
    },

    async get(caller, taskId) {
      const task = await findTask(db, taskId);
      return task && task.customer_id === caller.customerId ? (await withPositions(db, [task]))[0]! : videoFailures.taskNotFound();
    },

    async list(caller, page) {
      if (page.after) {
        const cursor = await findTask(db, page.after);
        if (!cursor || cursor.customer_id !== caller.customerId) return videoFailures.invalid('after', 'No video task of yours with this id to page after.');
      }
      const rows = await listTasks(db, caller.customerId, page);
      return { tasks: await withPositions(db, rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
    },

    async content(caller, taskId, request, sink) {
      const task = await findTask(db, taskId);
      if (!task || task.customer_id !== caller.customerId) return videoFailures.taskNotFound();
      return streamContent({ catalogue: deps.catalogue, logger: deps.logger }, task, request, sink);
    },

    pollAfterMs: (task) => (task?.status === VideoStatus.Review ? REVIEW_POLL_AFTER_MS : pollMs),

    async cancel(caller, taskId) {
      const task = await findTask(db, taskId);
      if (!task || task.customer_id !== caller.customerId) return videoFailures.taskNotFound();
      // Nothing was sent upstream: any plan's task is cancelled at once, its hold released with it.
      if (task.status === VideoStatus.Waiting && (await cancelWaiting(db, ledger, taskId))) return (await findTask(db, taskId))!;
      // What the task was sold with decides, not today's catalogue (older rows: the catalogue).
      const cancellable = task.cancellable ?? deps.discovery.findCatalogued(caller, task.model_id)?.video?.cancellable ?? false;
      if (!cancellable) return videoFailures.cancelNotSupported(task.model_id);
      if (task.status !== VideoStatus.Queued && task.status !== VideoStatus.InProgress) return videoFailures.notCancellable(task.status);
      const provider = deps.catalogue.current().providers.get(task.provider_id);
      const adapter = provider ? videoAdapters[provider.protocol] : undefined;
      if (!provider || !adapter || !task.upstream_task_id) return videoFailures.providerUnavailable('the task cannot be cancelled now.');
      const outcome: OutcomeDeps = { ledger, logger: deps.logger, transition: (id, from, changes) => transition(db, id, from, changes) };
      // Look first: a task that already finished is settled as finished, not cancelled.
      const before = await adapter.poll(provider, task.upstream_task_id);
      if (before instanceof UpstreamError) return videoFailures.upstreamUnreachable('the task goes on.');
      if (before.status !== 'queued' && before.status !== 'in_progress') {
        await settleFromPoll(outcome, task, before, pollMs);
        const after = (await findTask(db, taskId))!;
        return after.status === VideoStatus.Cancelled ? after : videoFailures.notCancellable(after.status);
      }
      const answer = await adapter.cancel(provider, task.upstream_task_id);
      if (answer instanceof UpstreamError) return videoFailures.upstreamUnreachable('it could not be asked to cancel; the task goes on.');
      if (answer === 'refused') {
        await settleFromPoll(outcome, task, before, pollMs); // the task goes on
        return videoFailures.cancelRefused();
      }
      // Only now, with the provider's confirmation, does the reservation move.
      const released = await ledger.release({ ref: taskId, purpose: { reason: 'cancelled by the customer' } });
      if (released !== LedgerError.AlreadySettled)
        await transition(db, taskId, [VideoStatus.Queued, VideoStatus.InProgress], {
          status: VideoStatus.Cancelled,
          upstream_status: 'cancelled',
          next_poll_at: null,
          completed_at: db.fn.now(),
        });
      return (await findTask(db, taskId))!;
    },
  };
}
