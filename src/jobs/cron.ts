// The clocks of background work: node-cron ticks, no logic. Correctness comes from the database
// (leases, guarded updates, references that take effect once), so any number of processes may
// tick at once; `noOverlap` keeps one process from running a job twice at the same time.
import cron from 'node-cron';
import type { Logger } from '../logger.ts';

export interface Ticker {
  stop(): Promise<void>;
}

/**
 * Runs `work` on the cron schedule; a failing run is logged and the next tick tries again. `stop`
 * aborts the signal `work` is given (a long run winds down) and waits for the run under way.
 */
export function every(expression: string, name: string, logger: Logger, work: (stop: AbortSignal) => Promise<unknown>): Ticker {
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    expression,
    () => {
      if (stopping.signal.aborted) return running;
      running = work(stopping.signal).catch((error: unknown) => logger.error({ err: error, job: name }, 'background job failed'));
      return running;
    },
    {
      noOverlap: true,
      name,
      // node-cron's own words go to our JSON log, not to the console. A skipped or late tick (the
      // last run still going, a busy event loop) is routine: the next tick catches up.
      logger: {
        info: (message) => logger.debug({ job: name }, message),
        warn: (message) => logger.debug({ job: name }, message),
        error: (message, err) => logger.error({ job: name, err: err ?? message }, 'background job scheduler failed'),
        debug: (message, err) => logger.debug({ job: name, ...(err ? { err } : {}) }, String(message)),
      },
    },
  );
  return {
    async stop() {
      stopping.abort();
      await task.stop();
      await running;
    },
  };
}

/**
 * Runs `work` every `ms` in this process (upkeep of its own memory: grants, remembered keys); a run
 * still going skips the tick, a failure is a warning and the next tick tries again.
 */
export function repeat(ms: number, name: string, logger: Logger, work: () => Promise<unknown>): Ticker {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= work()
      .catch((error: unknown) => logger.warn({ err: error, job: name }, 'upkeep failed; retrying'))
      .finally(() => (running = undefined));
  }, ms);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The jobs this process ticks (each may run in any number of replicas): holds, videos, then webhooks. */
/** The request log's upkeep (partitions ahead, retention): every hour at minute 7, off the hour when other jobs of the operator's tend to run. */
export const REQUEST_LOG_UPKEEP_SCHEDULE = '0 7 * * * *';
/** Its lease (src/jobs/lease.ts): a run starts at most once per half hour across replicas; a dead holder's lease runs out in 10 min. */
export const REQUEST_LOG_UPKEEP_LEASE = { name: 'request-log-upkeep', leaseMs: 10 * 60_000, gapMs: 30 * 60_000 };

export function startBackgroundJobs(
  config: { holdSweeper: boolean; videoPoller: boolean; webhooks?: boolean; requestLogUpkeep?: boolean },
  work: {
    sweep(): Promise<unknown>;
    drainVideos(stop: AbortSignal): Promise<unknown>;
    webhooks?(): Promise<unknown>;
    /** The request log's partitions ahead, at start; then its hourly upkeep. */
    requestLogUpkeep?: { atStart(): Promise<unknown>; run(stop: AbortSignal): Promise<unknown> };
  },
  logger: Logger,
): Ticker[] {
  const tickers: Ticker[] = [];
  if (config.holdSweeper) tickers.push(every('* * * * * *', 'hold-sweeper', logger, () => work.sweep()));
  if (config.videoPoller) tickers.push(every('* * * * * *', 'video-poller', logger, (stop) => work.drainVideos(stop)));
  if (config.webhooks && work.webhooks) tickers.push(every('* * * * * *', 'webhooks', logger, () => work.webhooks!()));
  const upkeep = work.requestLogUpkeep;
  if (config.requestLogUpkeep && upkeep) {
    const ready = upkeep
      .atStart()
      .catch((error: unknown) => logger.warn({ err: error, job: 'request-log-upkeep' }, 'not done at start; the hourly run retries'));
    const ticker = every(REQUEST_LOG_UPKEEP_SCHEDULE, 'request-log-upkeep', logger, (stop) => upkeep.run(stop));
    tickers.push({ stop: async () => void (await Promise.all([ready, ticker.stop()])) });
  }
  return tickers;
}
