// Posts the charges of requests that drew from grants: queued in memory, written every `flushMs`
// (or at once past `maxBatch`) as one statement for all customers. A charge the batch skips (its
// grant already returned) and a charge beyond what its grant pays (usage above the estimate: the
// balance, then debt, pay the rest) go through the single-charge path; a batch the database cannot take
// (an outage) goes to the settler's outbox and is retried until it lands. What a crash can lose is
// the charges still in the queue: at most one flush window of usage, never the customer's money.
import type { Logger } from '../logger.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Charged, ChargeInput } from '../ledger/charge.ts';
import type { LedgerError } from '../ledger/errors.ts';
import { chargeBatch, type ChargeItem } from '../ledger/grant-statements.ts';
import type { Settler } from './settler.ts';
import type { WalletQueue } from '../ledger/wallet-queue.ts';

export interface ChargeResult {
  /** Posted to the customer's debits (from the grant, then the balance). */
  charged: bigint;
  /** Recorded as the customer's debt (the balance could not cover it). */
  debt: bigint;
  replayed: boolean;
}

/** `from_grant`: the grant's hold paid it; `direct`: the grant was gone and the balance paid it. */
export type ChargeOutcome = 'from_grant' | 'direct';

export interface GrantFlusher {
  queue(charge: ChargeInput, posted: (outcome: ChargeOutcome) => void): Promise<ChargeResult>;
  /** Writes everything queued now (shutdown, tests). */
  flush(): Promise<void>;
  queued(): number;
  close(): void;
}

interface Queued {
  charge: ChargeInput;
  posted(outcome: ChargeOutcome): void;
  resolve(result: ChargeResult): void;
}

export function createGrantFlusher(deps: {
  wallets: WalletQueue;
  chargeAlone(input: ChargeInput): Promise<(Charged & { fromGrant: boolean }) | LedgerError>;
  settler: Settler;
  logger: Logger;
  flushMs: number;
  maxBatch?: number;
}): GrantFlusher {
  const maxBatch = deps.maxBatch ?? 500;
  let queue: Queued[] = [];
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function alone(entry: Queued): Promise<void> {
    let result: Awaited<ReturnType<typeof deps.chargeAlone>>;
    try {
      result = await deps.chargeAlone(entry.charge);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) deps.logger.error({ err: error, ref: entry.charge.ref }, 'charge failed; kept in the outbox and retried');
      return viaOutbox(entry);
    }
    if (typeof result === 'string') {
      deps.logger.error({ ref: entry.charge.ref, error: result }, 'charge refused');
      entry.posted('direct');
      return entry.resolve({ charged: 0n, debt: 0n, replayed: false });
    }
    entry.posted(result.fromGrant ? 'from_grant' : 'direct');
    entry.resolve({ charged: result.charged, debt: result.debt, replayed: result.replayed });
  }

  /** Durable before anything else: the outbox file, then retries until the database takes it. */
  function viaOutbox(entry: Queued): void {
    void deps.settler.submit({ kind: 'charge', ...entry.charge }).then((result) => {
      const charged = typeof result === 'string' ? 0n : 'charged' in result ? result.charged : 0n;
      const debt = typeof result === 'object' && 'debt' in result ? result.debt : 0n;
      entry.posted('from_grant');
      entry.resolve({ charged, debt, replayed: false });
    });
  }

  /** Whether the grant pays the whole charge (the batch statement's case). */
  const wholeFromGrant = (q: Queued) => (q.charge.fromGrant ?? q.charge.amount) === q.charge.amount;

  async function flushBatch(taken: Queued[]): Promise<void> {
    for (const entry of taken.filter((q) => !wholeFromGrant(q))) await alone(entry);
    const batch = taken.filter(wholeFromGrant);
    if (batch.length === 0) return;
    const items: ChargeItem[] = batch.map((q) => ({
      ref: q.charge.ref,
      grantRef: q.charge.grantRef,
      customerId: q.charge.customerId,
      amount: q.charge.amount.toString(),
      version: q.charge.priceVersionId === undefined || q.charge.priceVersionId === null ? null : q.charge.priceVersionId.toString(),
      purpose: q.charge.purpose ?? {},
    }));
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await deps.wallets.alone(chargeBatch(items));
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        deps.logger.error({ err: error, charges: batch.length }, 'charge batch failed; charges kept in the outbox and retried');
        for (const entry of batch) viaOutbox(entry);
        return;
      }
      for (const entry of batch) await alone(entry); // the batch could not stand as a whole
      return;
    }
    const posted = new Set(rows.filter((r) => r.charged === true).map((r) => r.ref as string));
    for (const entry of batch) {
      if (!posted.has(entry.charge.ref)) {
        await alone(entry); // its grant is gone, or it was already posted: the single path decides
        continue;
      }
      entry.posted('from_grant');
      entry.resolve({ charged: entry.charge.amount, debt: 0n, replayed: false });
    }
  }

  /** Posts what is queued now; charges that arrive meanwhile wait for the next window. */
  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const taken = queue;
    queue = [];
    running = running.then(async () => {
      for (let start = 0; start < taken.length; start += maxBatch) await flushBatch(taken.slice(start, start + maxBatch));
    });
    return running;
  }

  return {
    queue(charge, posted) {
      return new Promise<ChargeResult>((resolve) => {
        queue.push({ charge, posted, resolve });
        if (queue.length >= maxBatch) void flush();
        else if (!timer) timer = setTimeout(() => void flush(), deps.flushMs);
      });
    },
    flush,
    queued: () => queue.length,
    close() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
