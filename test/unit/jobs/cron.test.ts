import { expect } from 'chai';
import { every, startBackgroundJobs } from '../../../src/jobs/cron.ts';
import { createLogger } from '../../../src/logger.ts';

describe('every (background job clock)', () => {
  it('stop() tells the run under way to wind down and waits for it; no run starts after', async () => {
    let runs = 0;
    let sawStop = false;
    const ticker = every('* * * * * *', 'test-job', createLogger('silent'), async (stop) => {
      runs++;
      // A long run (a drain with much due) that ends as soon as it is told to.
      await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
      sawStop = stop.aborted;
    });
    const deadline = Date.now() + 3_000;
    while (runs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(runs).to.equal(1);
    await ticker.stop(); // without the abort, the run (and so this) would never end
    expect(sawStop).to.equal(true);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(runs).to.equal(1);
  });

  it("the request log's upkeep: its partitions prepared at start, a failure there only a warning, and stop waits for it", async () => {
    const started: string[] = [];
    let finish!: () => void;
    const tickers = startBackgroundJobs(
      { holdSweeper: false, videoPoller: false, requestLogUpkeep: true },
      {
        sweep: async () => undefined,
        drainVideos: async () => undefined,
        requestLogUpkeep: {
          atStart: () => {
            started.push('partitions');
            return new Promise<void>((resolve) => (finish = resolve)).then(() => Promise.reject(new Error('lock timeout')));
          },
          run: async () => void started.push('run'),
        },
      },
      createLogger('silent'),
    );
    expect(started).to.deep.equal(['partitions']);
    let stopped = false;
    const stopping = Promise.all(tickers.map((t) => t.stop())).then(() => (stopped = true));
    for (let turn = 0; turn < 10; turn++) await new Promise((r) => setImmediate(r)); // the ticker's own stop is done by now
    expect(stopped, 'waits for the preparation under way').to.equal(false);
    finish();
    await stopping; // the failure was logged, not thrown
    expect(started).to.deep.equal(['partitions']);
  });
});
