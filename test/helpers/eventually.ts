// Waiting for what the gateway does a moment after it answers (a settlement, a log row, a task's
// next state) without guessing how long it takes: poll the condition until it holds or a deadline
// passes. The deadline is a failure's bound, never a pace: a fast machine waits for nothing.

export interface EventuallyOptions {
  /** How long to keep trying before the last failure is thrown (default 5 s). */
  timeoutMs?: number;
  /** Pause between tries (default 20 ms). */
  intervalMs?: number;
}

/**
 * Runs `check` until it neither throws nor rejects, and returns what it returned. A check is
 * typically a function of chai assertions; the last assertion error is rethrown at the deadline,
 * so a failure reads as the assertion that never came true.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
