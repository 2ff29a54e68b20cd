// Settlements of a key's holds on their way to the database. A key's concurrency limit counts its
// pending reservations, and a request's settle follows its last byte by a moment: a client that
// sends its next request as soon as the previous answer ends can find that request
// still counted. Holds wait for this process's own settlements of the key before refusing.
export function createSettlingTracker() {
  const byKey = new Map<string, Set<Promise<unknown>>>();
  return {
    track(keyId: string | null, done: Promise<unknown>): void {
      if (!keyId) return;
      const open = byKey.get(keyId) ?? new Set();
      byKey.set(keyId, open.add(done));
      const forget = () => {
        open.delete(done);
        if (open.size === 0 && byKey.get(keyId) === open) byKey.delete(keyId);
      };
      done.then(forget, forget);
    },
    /** Waits, at most `ms`, for the key's settlements in flight; false when there were none. */
    async drain(keyId: string, ms: number): Promise<boolean> {
      const open = byKey.get(keyId);
      if (!open?.size) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([Promise.allSettled([...open]), timeout]);
      clearTimeout(timer);
      return true;
    },
  };
}
