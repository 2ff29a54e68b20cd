/** A simulated upstream listening on loopback, speaking one provider protocol. */
export interface Simulator {
  baseUrl: string;
  /** The credential its sandbox provider calls it with, when it checks one (a simulated service account's key, as JSON). */
  credential?: string;
  close(): Promise<void>;
  /**
   * Forgets what earlier callers left: recorded requests, queued behaviours, counters, tasks. Tests
   * that share one gateway between tests call it between them (a new simulator starts this way).
   */
  reset?(): void;
}

/** How a task simulator's tasks move on, and where it keeps them (task-book.ts; none: in memory). */
export interface SimulatorOptions {
  queuedMs?: number;
  runningMs?: number;
  stateFile?: string;
}
