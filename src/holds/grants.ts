// Credit grants: this process holds part of a customer's balance durably (a reservation of kind
// 'grant' it owns) and requests draw their upper bound from it in memory, so the request path
// makes no database round trip. Charges are posted in batches (grant-flusher.ts). Grants are sized
// to recent demand and capped at a share of what the customer has available; they are given back
// when idle, when another request of the customer is short (ours or another process's: a recall),
// and at shutdown; the sweeper ends the grants of a process that died. The database proves
// available >= 0 at every moment: every draw is covered by a grant's durable hold.
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { randomBase62 } from '../shared/ids.ts';
import { createDemandWindows } from './grant-demand.ts';
import { growGrant, shrinkGrant, type WalletQueue } from '../ledger/index.ts';
import { free, openDraw, type Draw, type Grant } from './grant-draw.ts';
import type { GrantFlusher } from './grant-flusher.ts';

/** SQLSTATE 22012: a grant statement's guard, when its reservation is no longer a pending grant. */
const DIVISION_BY_ZERO = '22012';

export interface GrantsOptions {
  /** Each grant holds at most 1/share of the customer's available balance when it grows. */
  share: bigint;
  /** A grant covers about this much of the customer's recent demand. */
  horizonMs: number;
  /** Unused this long, a grant is given back. */
  idleMs: number;
}

export function createGrants(deps: {
  db: Knex;
  wallets: WalletQueue;
  flusher: GrantFlusher;
  owner: string;
  logger: Logger;
  options: GrantsOptions;
  release(ref: string): Promise<unknown>;
}) {
  /** The grant each customer's requests draw from now. */
  const grants = new Map<string, Grant>();
  /** Grants being given back: no new draws, returned once their requests end and charges post. */
  const closing = new Set<Grant>();
  /** Bound amounts drawn per customer over the horizon: the demand a grant is sized to. */
  const demand = createDemandWindows(deps.options.horizonMs);
  const refusedUntil = new Map<string, number>();

  async function grow(g: Grant, want: bigint, need: bigint): Promise<boolean> {
    const statement = growGrant({ ref: g.ref, customerId: g.customerId, owner: deps.owner, want, need, share: deps.options.share, held: g.held, seq: ++g.seq });
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await deps.wallets.alone(statement);
    } catch (error) {
      // The statement's guard: the grant's row is no longer a pending grant (ended elsewhere).
      if (g.created && (error as { code?: unknown }).code === DIVISION_BY_ZERO) {
        endedElsewhere(g, 'grow');
        return false;
      }
      throw error;
    }
    const granted = rows[0]?.granted;
    if (granted === null || granted === undefined) return false;
    g.held += BigInt(granted as string | bigint);
    g.created = true;
    return true;
  }

  /**
   * The grant's reservation was settled or released outside this process (an operator, or the
   * sweeper taking this process for dead while the database was out of reach): no more draws
   * from it and nothing to give back. Draws already open are charged on their own (the flusher's
   * single path), from the customer's balance.
   */
  function endedElsewhere(g: Grant, seenBy: string): void {
    if (g.endedElsewhere) return;
    g.endedElsewhere = true;
    retire(g);
    deps.logger.warn({ grant: g.ref, customer_id: g.customerId, seen_by: seenBy }, 'a grant of this process was ended elsewhere; it is dropped');
  }

  /** Stops new draws from `g`; it is given back once its requests end. */
  function retire(g: Grant): void {
    g.closing = true;
    if (grants.get(g.customerId) === g) grants.delete(g.customerId);
    closing.add(g);
  }

  /** Retires `g` and gives back what no open request drew and no charge awaits. */
  async function giveFreePartBack(g: Grant): Promise<boolean> {
    retire(g);
    const amount = free(g);
    if (amount <= 0n || !g.created) return false;
    const rows = await deps.wallets.alone(shrinkGrant({ ref: g.ref, amount, seq: ++g.seq }));
    if (Number(rows[0]?.shrunk) !== 1) return false;
    g.held -= amount;
    return true;
  }

  function newGrant(customerId: string): Grant {
    const g: Grant = {
      ref: `gr_${randomBase62(20)}`,
      customerId,
      held: 0n,
      committed: 0n,
      drawn: 0n,
      draws: new Map(),
      seq: 0,
      created: false,
      lastUsed: Date.now(),
      closing: false,
      dirty: false,
    };
    grants.set(customerId, g);
    return g;
  }

  return {
    /**
     * A draw of `bound` for request `ref`, growing this process's grant for the customer when
     * needed; undefined when no grant can cover it (the caller reserves for the request alone).
     */
    async draw(customerId: string, ref: string, bound: bigint, purpose: Record<string, unknown>): Promise<Draw | undefined> {
      const wanted = demand.add(customerId, bound);
      let g = grants.get(customerId);
      if (g && free(g) >= bound) {
        // Grow ahead of need, off the request path, when less than half the demand is left.
        if (!g.growing && free(g) - bound < wanted / 2n) {
          const ahead = g;
          ahead.growing = grow(ahead, wanted, 1n)
            .catch(() => false)
            .finally(() => (ahead.growing = undefined));
        }
        return openDraw(g, ref, bound, purpose, deps.flusher);
      }
      if ((refusedUntil.get(customerId) ?? 0) > Date.now()) return undefined;
      g ??= newGrant(customerId);
      const target = g;
      while (free(target) < bound) {
        if (target.growing) {
          await target.growing;
          continue;
        }
        const want = wanted * 2n > bound * 4n ? wanted * 2n : bound * 4n;
        const growing = grow(target, want, bound - (free(target) > 0n ? free(target) : 0n));
        target.growing = growing;
        const grown = await growing.finally(() => (target.growing = undefined));
        if (!grown) {
          if (target.endedElsewhere) return undefined; // the next request opens a new grant
          refusedUntil.set(customerId, Date.now() + 1_000); // a small balance: per-request holds for a while
          if (!target.created) grants.delete(customerId);
          return undefined;
        }
        if (target.closing) return undefined;
      }
      return target.closing ? undefined : openDraw(target, ref, bound, purpose, deps.flusher);
    },

    /** Gives back the free part of the customer's grant (another request of theirs is short). */
    async shrink(customerId: string): Promise<boolean> {
      const g = grants.get(customerId);
      if (!g) return false;
      refusedUntil.set(customerId, Date.now() + 1_000);
      return giveFreePartBack(g);
    },

    /**
     * Grants another process asked back (a request of the same customer was short there), and
     * grants ended elsewhere, which are dropped.
     */
    async answerRecalls(): Promise<void> {
      const mine = [...grants.values(), ...closing].filter((g) => g.created && !g.endedElsewhere);
      if (mine.length === 0) return;
      const rows: Array<{ ref: string; status: string; recall: boolean }> = await deps
        .db('reservations')
        .whereIn(
          'ref',
          mine.map((g) => g.ref),
        )
        .where((q) => q.whereNot({ status: 'pending' }).orWhereRaw(`purpose->>'recall' = 'true'`))
        .select('ref', 'status', deps.db.raw(`purpose->>'recall' = 'true' as recall`));
      for (const { ref, status, recall } of rows) {
        const g = mine.find((candidate) => candidate.ref === ref)!;
        if (status !== 'pending') {
          if (!g.releasing) endedElsewhere(g, 'recall check');
          continue;
        }
        if (!recall) continue;
        refusedUntil.set(g.customerId, Date.now() + 1_000);
        await giveFreePartBack(g);
      }
    },

    /** Returns grants with nothing open and nothing to post that are idle, closing, or all (`force`). */
    async giveBack(force = false): Promise<void> {
      const now = Date.now();
      for (const g of [...grants.values(), ...closing]) {
        if (g.drawn > 0n || g.committed > 0n || g.growing) continue;
        if (!force && !g.closing && now - g.lastUsed < deps.options.idleMs) continue;
        retire(g);
        try {
          g.releasing = true;
          if (g.created && !g.endedElsewhere) await deps.release(g.ref);
          closing.delete(g);
        } catch (error) {
          g.releasing = false;
          deps.logger.warn({ err: error, grant: g.ref }, 'giving a grant back failed; retrying later');
        }
      }
    },

    /** Progress of open draws per grant, for the checkpoint the sweeper reads if this process dies. */
    checkpoints(): Array<{ ref: string; progress: Record<string, unknown> }> {
      const changed = [...grants.values(), ...closing].filter((g) => g.dirty && g.created);
      for (const g of changed) g.dirty = false;
      return changed.map((g) => ({
        ref: g.ref,
        progress: {
          inflight: [...g.draws]
            .filter(([, d]) => d.progress)
            .map(([request, d]) => ({ ref: request, charge: d.progress!.charge.toString(), usage: d.progress!.usage ?? null, ...d.purpose })),
        },
      }));
    },

    held: () => [...grants.values(), ...closing].map((g) => ({ ref: g.ref, customerId: g.customerId, held: g.held, drawn: g.drawn, committed: g.committed })),
    openDraws: () => [...grants.values(), ...closing].reduce((n, g) => n + g.draws.size, 0),
    /** Refs of the grants this process holds (for the recall check). */
    refs: () => [...grants.values(), ...closing].filter((g) => g.created).map((g) => g.ref),
  };
}

export type Grants = ReturnType<typeof createGrants>;
export type { Draw } from './grant-draw.ts';
