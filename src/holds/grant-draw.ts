// One process's credit grant as it stands in memory, and the draws requests take from it: a draw
// holds its bound against the grant's free part until the request's charge is queued (or the
// draw is released), exactly once.
import type { ChargeResult, GrantFlusher } from './grant-flusher.ts';

export interface Draw {
  readonly ref: string;
  readonly grantRef: string;
  readonly customerId: string;
  readonly bound: bigint;
  /**
   * Charges `amount` in full and ends the draw: from the grant (the draw's bound, and beyond it
   * the grant's free part), then from the customer's balance, then as debt.
   */
  charge(amount: bigint, purpose: Record<string, unknown>, priceVersionId?: bigint | null): Promise<ChargeResult>;
  release(): void;
  /** What was delivered so far, priced, with what the sweeper needs for the request's log row. */
  checkpoint(charge: bigint, usage: Record<string, unknown> | undefined): void;
}

export interface Grant {
  ref: string;
  customerId: string;
  /** What the database holds for the grant, as far as this process knows. */
  held: bigint;
  /** Charges queued and not yet posted (held drops by them when they are). */
  committed: bigint;
  /** Bounds of the open draws. */
  drawn: bigint;
  draws: Map<string, { purpose: Record<string, unknown>; progress?: { charge: bigint; usage?: Record<string, unknown> } }>;
  seq: number;
  /** Its reservation row exists (a grow succeeded once). */
  created: boolean;
  lastUsed: number;
  growing?: Promise<unknown>;
  /** No new draws: being given back. */
  closing: boolean;
  /** Its reservation was ended outside this process: nothing is left to give back. */
  endedElsewhere?: boolean;
  /** This process is releasing its reservation (a released row is then no news). */
  releasing?: boolean;
  dirty: boolean;
}

/** What the grant holds that no open draw and no queued charge claims. */
export const free = (g: Grant) => g.held - g.committed - g.drawn;

/** Draws `bound` from `g` for request `ref`; the draw ends once, by its charge or its release. */
export function openDraw(g: Grant, ref: string, bound: bigint, purpose: Record<string, unknown>, flusher: GrantFlusher): Draw {
  g.drawn += bound;
  g.lastUsed = Date.now();
  g.draws.set(ref, { purpose });
  let ended = false;
  const end = () => {
    if (ended) return false;
    ended = true;
    g.drawn -= bound;
    g.draws.delete(ref);
    g.dirty = true;
    return true;
  };
  return {
    ref,
    grantRef: g.ref,
    customerId: g.customerId,
    bound,
    charge(amount, chargePurpose, priceVersionId) {
      if (!end()) return Promise.resolve({ charged: 0n, debt: 0n, replayed: true });
      // The draw has ended, so the grant's free part now includes its bound: a charge above the
      // bound (input beyond the estimate) takes from what no other draw holds, and the ledger
      // takes the rest from the balance behind the grant (or records it as debt).
      const room = free(g) > 0n ? free(g) : 0n;
      const fromGrant = amount <= room ? amount : room;
      g.committed += fromGrant;
      // A store on a copy, not `{ ...chargePurpose, reserved }`: a property after a spread takes a
      // slow path in this V8 (Node 20), about 1 us a charge.
      const purpose: Record<string, unknown> = { ...chargePurpose };
      purpose.reserved = bound.toString();
      const charge = { ref, grantRef: g.ref, customerId: g.customerId, amount, fromGrant, priceVersionId: priceVersionId ?? null, purpose };
      return flusher.queue(charge, (outcome) => {
        g.committed -= fromGrant;
        if (outcome === 'from_grant') g.held -= fromGrant;
      });
    },
    release: () => void end(),
    checkpoint(charge, usage) {
      const draw = g.draws.get(ref);
      if (!draw) return;
      draw.progress = { charge: charge < bound ? charge : bound, ...(usage ? { usage } : {}) };
      g.dirty = true;
    },
  };
}
