// Ends the request holds of gateway processes that died (crash, kill -9, lost host): a hold whose
// owner has not heartbeated for `staleSeconds` is settled at the owner's last checkpoint when
// something had been delivered, else released, and the request gets a log row marked interrupted.
// Any number of replicas may sweep at once: settle and release take effect once per reference,
// and the log row is inserted once per request id.
import type { Ledger, ReservationRow } from '../ledger/index.ts';
import type { Logger } from '../logger.ts';
import { checkpointedCharge, checkpointedDraws, type CheckpointedDraw } from './delivered.ts';
import { EMPTY_LOG_FIELDS, type RequestLogs } from '../logs/request-logs.ts';
import type { SweepMetrics } from '../metrics/hooks.ts';
import { requestIdTime } from '../shared/ids.ts';

type Usage = NonNullable<CheckpointedDraw['usage']>;

/** The upstream cost of what was delivered by the checkpoint, recorded beside the sweeper's charge. */
const costAtCheckpoint = (usage: Record<string, unknown> | null | undefined): { upstream_cost?: unknown } =>
  usage?.upstream_cost ? { upstream_cost: usage.upstream_cost } : {};

export interface Sweeper {
  /** Ends up to `limit` stale holds; returns how many it ended. */
  sweep(limit?: number): Promise<number>;
  readonly staleSeconds: number;
}

export function createSweeper(deps: { ledger: Ledger; requestLogs: RequestLogs; logger: Logger; staleSeconds: number; metrics?: SweepMetrics }): Sweeper {
  /**
   * A dead process's grant: each request it had open is charged at its last checkpoint (the same
   * reference its own charge would have had, so a charge that did land is not repeated), then the
   * rest of the grant is given back.
   */
  async function sweepGrant(grant: ReservationRow): Promise<number> {
    const open = checkpointedDraws(grant.progress);
    for (const draw of open) {
      const result = await deps.ledger.charge({
        ref: draw.ref,
        grantRef: grant.ref,
        customerId: grant.customer_id,
        amount: BigInt(draw.charge),
        purpose: {
          ...(draw.key_id ? { key_id: draw.key_id } : {}),
          ...(draw.model ? { model: draw.model } : {}),
          ...costAtCheckpoint(draw.usage),
          ending: 'owner_gone',
          estimated: true,
          swept: true,
        },
      });
      if (typeof result === 'string' || result.replayed) continue;
      interrupted({ ...draw, ref: draw.request_id ?? draw.ref }, grant.customer_id, result.charged, new Date(grant.created_at), (draw.usage ?? {}) as Usage);
    }
    const released = await deps.ledger.release({ ref: grant.ref, purpose: { reason: 'owner gone', swept: true } });
    if (typeof released === 'string') return 0;
    deps.logger.warn({ grant: grant.ref, customer_id: grant.customer_id, owner: grant.owner, requests: open.length }, 'swept a grant whose process is gone');
    return 1;
  }

  function interrupted(
    purpose: { ref: string; model?: string; key_id?: string; endpoint?: string },
    customerId: string,
    cost: bigint,
    since: Date,
    usage: Usage,
  ): void {
    deps.requestLogs.write({
      ...EMPTY_LOG_FIELDS,
      request_id: purpose.ref,
      customer_id: customerId,
      key_id: purpose.key_id ?? null,
      endpoint: purpose.endpoint ?? 'unknown',
      model: purpose.model ?? null,
      status: 499,
      error_type: 'interrupted',
      latency_ms: Math.max(0, Date.now() - since.getTime()),
      input_tokens: cost > 0n ? (usage.input_tokens ?? null) : null,
      output_tokens: cost > 0n ? (usage.output_tokens ?? null) : null,
      cost,
      usage_estimated: true,
      interrupted: true,
      // The arrival its id carries, as the owner's own row would have: either replaces the other.
      created_at: requestIdTime(purpose.ref),
      swept: true,
    });
  }

  return {
    staleSeconds: deps.staleSeconds,
    async sweep(limit = 100) {
      const { rows } = await deps.ledger.reservations({ status: 'pending', staleSeconds: deps.staleSeconds, limit });
      let ended = 0;
      for (const hold of rows) {
        if (hold.kind === 'grant') {
          ended += await sweepGrant(hold);
          continue;
        }
        const delivered = checkpointedCharge(hold);
        const purpose = hold.purpose as { request_id?: string; model?: string; key_id?: string; endpoint?: string };
        const charge = delivered < hold.amount ? delivered : hold.amount;
        const result =
          charge > 0n
            ? await deps.ledger.settle({
                ref: hold.ref,
                charge: { amount: charge },
                purpose: { ...costAtCheckpoint(hold.progress?.usage), ending: 'owner_gone', estimated: true, swept: true },
              })
            : await deps.ledger.release({ ref: hold.ref, purpose: { reason: 'owner gone before anything was delivered', swept: true } });
        if (typeof result === 'string') continue; // another replica (or the owner's outbox) got there first
        ended++;
        interrupted(
          { ...purpose, ref: purpose.request_id ?? hold.ref },
          hold.customer_id,
          'charged' in result ? result.charged : 0n,
          new Date(hold.created_at),
          (hold.progress?.usage ?? {}) as Usage,
        );
        deps.logger.warn(
          { ref: hold.ref, customer_id: hold.customer_id, owner: hold.owner, charged: 'charged' in result ? result.charged.toString() : '0' },
          'swept a hold whose process is gone',
        );
      }
      deps.metrics?.swept(ended);
      return ended;
    },
  };
}
