// Ends the request holds of gateway processes that died (crash, kill -9, lost host): a hold whose
// owner has not heartbeated for `staleSeconds` is settled at the owner's last checkpoint when
// something had been delivered, else released, and the request gets a log row marked interrupted.
// Any number of replicas may sweep at once: settle and release take effect once per reference,
// and the log row is inserted once per request id.
import type { Ledger } from '../ledger/service.ts';
import type { Logger } from '../logger.ts';
import { EMPTY_LOG_FIELDS, type RequestLogs } from '../logs/request-logs.ts';
import type { SweepMetrics } from '../metrics/hooks.ts';

export interface Sweeper {
  /** Ends up to `limit` stale holds; returns how many it ended. */
  sweep(limit?: number): Promise<number>;
  readonly staleSeconds: number;
}

export function createSweeper(deps: { ledger: Ledger; requestLogs: RequestLogs; logger: Logger; staleSeconds: number; metrics?: SweepMetrics }): Sweeper {
  return {
    staleSeconds: deps.staleSeconds,
    async sweep(limit = 100) {
      const { rows } = await deps.ledger.reservations({ status: 'pending', staleSeconds: deps.staleSeconds, limit });
      let ended = 0;
      for (const hold of rows) {
        const delivered = hold.progress?.charge ? BigInt(hold.progress.charge) : 0n;
        const purpose = hold.purpose as { request_id?: string; model?: string; key_id?: string; endpoint?: string };
        const charge = delivered < hold.amount ? delivered : hold.amount;
        const result =
          charge > 0n
            ? await deps.ledger.settle({ ref: hold.ref, charge: { amount: charge }, purpose: { ending: 'owner_gone', estimated: true, swept: true } })
            : await deps.ledger.release({ ref: hold.ref, purpose: { reason: 'owner gone before anything was delivered', swept: true } });
        if (typeof result === 'string') continue; // another replica (or the owner's outbox) got there first
        ended++;
        const usage = (hold.progress?.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
        deps.requestLogs.write({
          ...EMPTY_LOG_FIELDS,
          request_id: purpose.request_id ?? hold.ref,
          customer_id: hold.customer_id,
          key_id: purpose.key_id ?? null,
          endpoint: purpose.endpoint ?? 'unknown',
          model: purpose.model ?? null,
          status: 499,
          error_type: 'interrupted',
          latency_ms: Math.max(0, Date.now() - new Date(hold.created_at).getTime()),
          input_tokens: charge > 0n ? (usage.input_tokens ?? null) : null,
          output_tokens: charge > 0n ? (usage.output_tokens ?? null) : null,
          cost: 'charged' in result ? result.charged : 0n,
          usage_estimated: true,
          interrupted: true,
          created_at: new Date(),
        });
        deps.logger.warn({ ref: hold.ref, customer_id: hold.customer_id, owner: hold.owner, charged: 'charged' in result ? result.charged.toString() : '0' }, 'swept a hold whose process is gone');
      }
      deps.metrics?.swept(ended);
      return ended;
    },
  };
}
