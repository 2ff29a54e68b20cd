// Where a video task's submission and poll meet tracing. Set by src/telemetry/tracing.ts when
// tracing is on; undefined otherwise, when the adapters read this one property and nothing more.
// The providers own the seam, so tracing (above them) reaches down to it, never the reverse.

/** What an upstream call says about itself on its span; never a URL, a host or a credential. */
export interface CallLabels {
  /** The catalogue's provider id (the span's `server.address` and `gen_ai.provider.name`). */
  provider: string;
  /** The model name sent upstream. */
  model?: string;
}

export interface TaskSpans {
  /**
   * A span around a video task's submission or poll: its upstream calls are its children; `result`
   * names what came of it (an attribute per entry).
   */
  videoTask<T>(kind: 'submit' | 'poll', labels: CallLabels, work: () => Promise<T>, result: (outcome: T) => Record<string, string>): Promise<T>;
}

export const taskSpans: { current?: TaskSpans } = {};
