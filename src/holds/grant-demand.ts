// How much each customer's requests drew lately: the demand a credit grant is sized to. A sliding
// window of ten slots over the horizon; a slot the clock left behind starts again from zero.

export interface DemandWindows {
  /** Adds `bound` to the customer's current slot and returns the window's total. */
  add(customerId: string, bound: bigint, now?: number): bigint;
}

const SLOTS = 10;

export function createDemandWindows(horizonMs: number): DemandWindows {
  const width = Math.max(1, Math.floor(horizonMs / SLOTS));
  const windows = new Map<string, { slot: number; amounts: bigint[] }>();
  return {
    add(customerId, bound, now = Date.now()) {
      const slot = Math.floor(now / width);
      let window = windows.get(customerId);
      if (!window) windows.set(customerId, (window = { slot, amounts: Array.from({ length: SLOTS }, () => 0n) }));
      // Slots that passed since the last draw are emptied; the current one adds this bound.
      for (let s = window.slot + 1; s <= slot && s <= window.slot + SLOTS; s++) window.amounts[s % SLOTS] = 0n;
      window.slot = slot;
      window.amounts[slot % SLOTS]! += bound;
      return window.amounts.reduce((sum, amount) => sum + amount, 0n);
    },
  };
}
