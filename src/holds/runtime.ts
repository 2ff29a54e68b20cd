// This process's runtime over the book, wired in one place: the heartbeat lease (instance), the
// settler and its outbox, the grant flusher, the credit grants and the request holds, and the order
// in which they stop. gateway.ts builds it once.
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import { repeat } from '../jobs/cron.ts';
import type { Ledger } from '../ledger/index.ts';
import type { Logger } from '../logger.ts';
import { waitUntil } from '../shared/wait.ts';
import { createGrantFlusher } from './grant-flusher.ts';
import { createGrants } from './grants.ts';
import { createHolds } from './holds.ts';
import { createInstance } from './instance.ts';
import { createSettler } from './settler.ts';

type RuntimeConfig = Pick<Config, 'heartbeatMs' | 'staleReservationSeconds' | 'dataDir' | 'grantFlushMs' | 'grants' | 'grantIdleMs'>;

export async function startHoldsRuntime(deps: { db: Knex; ledger: Ledger; logger: Logger; config: RuntimeConfig }) {
  const { db, ledger, logger, config } = deps;
  const instance = createInstance({ db, logger, heartbeatMs: config.heartbeatMs, staleSeconds: config.staleReservationSeconds });
  await instance.start();
  const settler = createSettler({ ledger, logger, outboxDir: path.join(config.dataDir, 'outbox'), instanceId: instance.id });
  const flusher = createGrantFlusher({
    wallets: ledger.context.wallets,
    chargeAlone: (input) => ledger.charge(input),
    settler,
    logger,
    flushMs: config.grantFlushMs,
  });
  const grants = config.grants
    ? createGrants({
        db,
        wallets: ledger.context.wallets,
        flusher,
        owner: instance.id,
        logger,
        options: { share: 4n, horizonMs: 2_000, idleMs: config.grantIdleMs },
        release: (ref) => ledger.release({ ref, purpose: { reason: 'grant given back' } }).then(mustEnd),
      })
    : undefined;
  const holds = createHolds({ db, ledger, settler, instance, logger, ...(grants ? { grants } : {}) });
  instance.onTick(() => holds.flushCheckpoints());
  const grantUpkeep = grants && repeat(500, 'grant-upkeep', logger, () => Promise.all([grants.answerRecalls(), grants.giveBack()]));

  return {
    instance,
    settler,
    holds,
    /** Posts queued grant charges and gives back grants no request is drawing from. */
    async quiesce(): Promise<void> {
      await flusher.flush();
      await grants?.giveBack(true);
    },
    /** After the last request: holds end, charges post, grants go back, the outbox is tried once more. */
    async stop(): Promise<void> {
      await waitUntil(() => holds.live() === 0, 2_000);
      await grantUpkeep?.stop();
      await flusher.flush();
      await grants?.giveBack(true).catch((error: unknown) => logger.error({ err: error }, 'could not give grants back; the sweeper will'));
      flusher.close();
      await settler.retryNow();
      settler.close();
    },
    /** Last: the lease ends (its holds are ended by then). */
    async release(): Promise<void> {
      await instance.stop().catch((error: unknown) => logger.error({ err: error }, 'could not mark this process stopped; its holds will be swept'));
    },
  };
}

/** A ledger answer that must not be an expected failure (a grant given back is pending by construction). */
function mustEnd<T>(result: T | string): T {
  if (typeof result === 'string' && result !== 'already_released') throw new Error(`grant could not be given back: ${result}`);
  return result as T;
}
