import { expect } from 'chai';
import { every } from '../../../src/jobs/cron.ts';
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
});
