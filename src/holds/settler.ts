// Ends reservations durably. A settle or release goes to the database at once; if the database
// cannot take it (an outage), it is appended to an outbox file (fsynced) and retried until it
// succeeds, so a delivered answer is charged once the database is back, never released for free.
// A process that dies with entries in its outbox leaves them for the next start on this host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import type { Charge, Charged, ChargeInput, Ledger, LedgerError, Purpose, Released, Settled } from '../ledger/index.ts';

export type Settlement =
  | { kind: 'settle'; ref: string; customerId?: string; charge: Charge; purpose?: Purpose }
  | { kind: 'release'; ref: string; purpose?: Purpose }
  | ({ kind: 'charge' } & ChargeInput);

export type SettlementResult = Settled | Released | Charged | LedgerError;

export interface Settler {
  /** Resolves once the settlement is in the database (after an outage, once it is back). */
  submit(settlement: Settlement): Promise<SettlementResult>;
  /** Settlements waiting for the database. */
  waiting(): number;
  /** Tries every waiting settlement now; those that still fail stay in the outbox file. */
  retryNow(): Promise<void>;
  /** Applies outbox files left by processes of this host that are gone; returns how many entries. */
  replayOrphans(): Promise<number>;
  close(): void;
}

interface Waiting {
  settlement: Settlement;
  resolve(result: SettlementResult): void;
}

export function createSettler(deps: { ledger: Ledger; logger: Logger; outboxDir: string; instanceId: string; retryMs?: number }): Settler {
  const retryMs = deps.retryMs ?? 1_000;
  fs.mkdirSync(deps.outboxDir, { recursive: true });
  const outbox = path.join(deps.outboxDir, `${os.hostname()}-${process.pid}-${deps.instanceId}.jsonl`);
  const waiting = new Map<string, Waiting>();
  let timer: NodeJS.Timeout | undefined;
  let attempt = 0;

  const apply = (s: Settlement): Promise<SettlementResult> => {
    if (s.kind === 'settle')
      return deps.ledger.settle({ ref: s.ref, charge: s.charge, purpose: s.purpose, ...(s.customerId ? { customerId: s.customerId } : {}) });
    if (s.kind === 'charge') return deps.ledger.charge(s);
    return deps.ledger.release({ ref: s.ref, purpose: s.purpose });
  };

  function persist(settlement: Settlement): void {
    const fd = fs.openSync(outbox, 'a', 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(settlement, (_key, value: unknown) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value))}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  function scheduleRetry(): void {
    if (timer || waiting.size === 0) return;
    const delay = Math.min(retryMs * 2 ** Math.min(attempt, 4), 10 * retryMs);
    timer = setTimeout(() => {
      timer = undefined;
      void retryNow();
    }, delay);
    timer.unref();
  }

  async function retryNow(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    for (const [ref, entry] of [...waiting]) {
      try {
        const result = await apply(entry.settlement);
        waiting.delete(ref);
        entry.resolve(result);
      } catch (error) {
        attempt++;
        deps.logger.warn({ ref, err: error, waiting: waiting.size }, 'settlement still waiting for the database');
        break; // the database is still away: try again later, in order
      }
    }
    if (waiting.size === 0) {
      attempt = 0;
      fs.rmSync(outbox, { force: true });
    }
    scheduleRetry();
  }

  function wait(settlement: Settlement, resolve: (result: SettlementResult) => void): void {
    persist(settlement);
    waiting.set(settlement.ref, { settlement, resolve });
    scheduleRetry();
  }

  return {
    submit(settlement) {
      return new Promise<SettlementResult>((resolve) => {
        if (waiting.size > 0) return wait(settlement, resolve); // keep order behind those already waiting
        apply(settlement).then(resolve, (error: unknown) => {
          deps.logger.error({ ref: settlement.ref, err: error }, 'settlement failed; kept in the outbox and retried');
          wait(settlement, resolve);
        });
      });
    },
    waiting: () => waiting.size,
    retryNow,
    async replayOrphans() {
      let replayed = 0;
      for (const name of fs.readdirSync(deps.outboxDir)) {
        const match = /^(.+)-(\d+)-(gw_[A-Za-z0-9]+)\.jsonl$/.exec(name);
        if (!match || match[1] !== os.hostname() || match[3] === deps.instanceId || processAlive(Number(match[2]))) continue;
        const file = path.join(deps.outboxDir, name);
        const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
        for (const line of lines) {
          const settlement = JSON.parse(line, (_key, value: unknown) =>
            value && typeof value === 'object' && '$bigint' in value ? BigInt((value as { $bigint: string }).$bigint) : value,
          ) as Settlement;
          const result = await apply(settlement).catch(() => undefined);
          if (result === undefined) wait(settlement, () => undefined); // still no database: ours now
          replayed++;
        }
        fs.rmSync(file, { force: true });
        deps.logger.info({ file: name, settlements: lines.length }, 'replayed the outbox of a stopped process');
      }
      return replayed;
    },
    close() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
