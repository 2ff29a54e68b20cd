// Video tasks: accept (validate, then the row and its hold in one transaction, then submit), show,
// list, cancel, download (content.ts). The task engine (src/tasks) runs them after that: the poller
// reads each poll through the video kind (kind.ts) and settles by delivered output.
import { createHash } from 'node:crypto';
import { randomBase62 } from '../../shared/ids.ts';
import type { Caller } from '../../customers/service.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
import { pricedTier } from '../../catalogue/video-tiers.ts';
import { isVideoProtocol, type VideoProtocol } from '../../catalogue/video-protocols.ts';
import { Failure } from '../failure.ts';
import type { RateState } from '../../ledger/service.ts';
import { keyLimitFailure } from '../limits/headers.ts';
import { videoLines } from '../../pricing/cost.ts';
import { UpstreamError } from '../../providers/types.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import { acceptTask } from '../../tasks/accept.ts';
import { SUBMIT_LEASE_MS, type TaskContext } from '../../tasks/context.ts';
import { TaskStatus } from '../../tasks/model.ts';
import { applyOutcome } from '../../tasks/outcome.ts';
import { cancelWaiting } from '../../tasks/queue.ts';
import { findByIdempotencyKey, findTaskOfKind, listTasks } from '../../tasks/rows.ts';
import { submitTask } from '../../tasks/submit.ts';
import { withPositions } from '../../tasks/turns.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import type { Sink } from '../sink.ts';
import { streamContent, type ContentRequest } from './content.ts';
import { videoFailures } from './errors.ts';
import { readVideoPoll, VIDEO_KIND, type VideoTaskRow } from './kind.ts';
import { heldSeconds, validateVideoRequest } from './validate.ts';

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
  /** The task engine's context (database, ledger, catalogue, kinds, poll interval). */
  tasks: TaskContext;
  discovery: DiscoveryService;
}

/** A task in review waits for an operator: clients need not look often. */
const REVIEW_POLL_AFTER_MS = 60_000;

const hashOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export function createVideoService(deps: VideoServiceDeps): VideoService {
  const { tasks } = deps;
  const { db } = tasks;
  const findTask = async (id: string) => (await findTaskOfKind(db, VIDEO_KIND, id)) as VideoTaskRow | undefined;

  const withRate = (replayed: VideoTaskRow | Failure) => (replayed instanceof Failure ? replayed : { task: replayed });

  function replay(existing: VideoTaskRow, hash: string): VideoTaskRow | Failure {
    if (existing.request_hash !== hash) return videoFailures.keyReused();
    // Still in its create request (a task dispatched from the queue is not: it was answered long ago).
    if (existing.status === TaskStatus.Submitting && !existing.queued_at && Date.now() - new Date(existing.created_at).getTime() < SUBMIT_LEASE_MS)
      return videoFailures.keyInFlight();
    return existing;
  }

  return {
    async create({ caller, body, idempotencyKey }) {
      // A model the key may reach but no enabled provider serves is a 503, not a 404.
      const model = typeof body.model === 'string' ? deps.discovery.findCatalogued(caller, body.model) : undefined;
      if (!model) {
        const retired = typeof body.model === 'string' ? deps.discovery.retirement(caller, body.model) : undefined;
        return retired ? passthroughFailures.modelRetired(retired) : videoFailures.modelNotFound(String(body.model));
      }
      const video = model.video;
      if (model.group !== 'video' || !video) return videoFailures.notVideo(model.id, model.group);
      const route = model.routes.find((r) => r.provider.baseUrl && videoAdapters[r.provider.protocol] && isVideoProtocol(r.provider.protocol));
      if (!route) return videoFailures.noProvider(model.id);
      const request = validateVideoRequest(body, model, route.provider.protocol as VideoProtocol);
      if ('param' in request) return videoFailures.invalid(request.param, request.message);
      const hash = hashOf(request);
      if (idempotencyKey) {
        const existing = await findByIdempotencyKey(db, caller.customerId, idempotencyKey);
        if (existing) return withRate(replay(existing as VideoTaskRow, hash));
      }

      const price = model.price as VideoPrice;
      const taskId = `vt_${randomBase62(24)}`;
      const task = {
        id: taskId,
        kind: VIDEO_KIND,
        customerId: caller.customerId,
        keyId: caller.keyId,
        modelId: model.id,
        provider: route.provider,
        upstreamModel: route.upstreamModel,
        request,
        price: { per_second: price.per_second, currency: deps.discovery.currency(), version: model.priceVersion.version },
        priceVersionId: model.priceVersion.id,
        idempotencyKey: idempotencyKey ?? null,
        requestHash: hash,
        cancellable: video.cancellable,
      };
      const accepted = await acceptTask(tasks, task, {
        bound: {
          lines: videoLines(price.per_second[pricedTier(price.per_second, request.resolution, request.generate_audio === true)]!, heldSeconds(request)),
        },
        purpose: { video_task_id: taskId, model: model.id, key_id: caller.keyId },
        priceVersionId: model.priceVersion.id,
        ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
        limits: caller.limited,
      });
      if (!accepted.accepted) {
        if (accepted.reason === 'insufficient_funds') return videoFailures.insufficientBalance();
        if (accepted.reason === 'key_limit') return keyLimitFailure(accepted.refusal, 'openai');
        const existing = await findByIdempotencyKey(db, caller.customerId, idempotencyKey!);
        if (!existing) throw new Error('an Idempotency-Key taken by a task that cannot be found');
        return withRate(replay(existing as VideoTaskRow, hash));
      }

      // Beyond the provider's limit (or behind others waiting): accepted, it waits at the gateway.
      if (!accepted.waits) {
        const sent = await submitTask(tasks, accepted.task, route.provider);
        if (sent.outcome === 'refused') return videoFailures.upstreamRefused(sent.cause, [[route.upstreamModel, model.id]]);
      }
      return { task: (await withPositions(db, [(await findTask(taskId))!]))[0]!, rate: accepted.rate };
    },

    async get(caller, taskId) {
      const task = await findTask(taskId);
      return task && task.customer_id === caller.customerId ? (await withPositions(db, [task]))[0]! : videoFailures.taskNotFound();
    },

    async list(caller, page) {
      if (page.after) {
        const cursor = await findTask(page.after);
        if (!cursor || cursor.customer_id !== caller.customerId) return videoFailures.invalid('after', 'No video task of yours with this id to page after.');
      }
      const rows = (await listTasks(db, caller.customerId, VIDEO_KIND, page)) as VideoTaskRow[];
      return { tasks: await withPositions(db, rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
    },

    async content(caller, taskId, request, sink) {
      const task = await findTask(taskId);
      if (!task || task.customer_id !== caller.customerId) return videoFailures.taskNotFound();
      return streamContent({ catalogue: tasks.catalogue, logger: tasks.logger }, task, request, sink);
    },

    pollAfterMs: (task) => (task?.status === TaskStatus.Review ? REVIEW_POLL_AFTER_MS : tasks.pollMs),

    async cancel(caller, taskId) {
      const task = await findTask(taskId);
      if (!task || task.customer_id !== caller.customerId) return videoFailures.taskNotFound();
      // Nothing was sent upstream: any plan's task is cancelled at once, its hold released with it.
      if (task.status === TaskStatus.Waiting && (await cancelWaiting(db, tasks.ledger, taskId))) return (await findTask(taskId))!;
      // What the task was sold with decides, not today's catalogue (older rows: the catalogue).
      const cancellable = task.cancellable ?? deps.discovery.findCatalogued(caller, task.model_id)?.video?.cancellable ?? false;
      if (!cancellable) return videoFailures.cancelNotSupported(task.model_id);
      if (task.status !== TaskStatus.Queued && task.status !== TaskStatus.InProgress) return videoFailures.notCancellable(task.status);
      const provider = tasks.catalogue.current().providers.get(task.provider_id);
      const adapter = provider ? videoAdapters[provider.protocol] : undefined;
      if (!provider || !adapter || !task.upstream_task_id) return videoFailures.providerUnavailable('the task cannot be cancelled now.');
      // Look first: a task that already finished is settled as finished, not cancelled.
      const before = await adapter.poll(provider, task.upstream_task_id);
      if (before instanceof UpstreamError) return videoFailures.upstreamUnreachable('the task goes on.');
      if (before.status !== 'queued' && before.status !== 'in_progress') {
        await applyOutcome(tasks, task, readVideoPoll(task, before));
        const after = (await findTask(taskId))!;
        return after.status === TaskStatus.Cancelled ? after : videoFailures.notCancellable(after.status);
      }
      const answer = await adapter.cancel(provider, task.upstream_task_id);
      if (answer instanceof UpstreamError) return videoFailures.upstreamUnreachable('it could not be asked to cancel; the task goes on.');
      if (answer === 'refused') {
        await applyOutcome(tasks, task, readVideoPoll(task, before)); // the task goes on
        return videoFailures.cancelRefused();
      }
      // Only now, with the provider's confirmation, does the reservation move.
      await applyOutcome(tasks, task, {
        outcome: 'release',
        status: TaskStatus.Cancelled,
        reason: 'cancelled by the customer',
        seen: { upstream_status: 'cancelled' },
      });
      return (await findTask(taskId))!;
    },
  };
}
