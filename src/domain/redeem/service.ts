// Redeem codes (issue 37): operators mint batches of single-use codes worth an amount, see which
// were redeemed by whom, and void the rest; a customer redeems a code for a credit. A redemption
// is the code's claim (a conditional update) and its credit (the ledger's top-up, which repays any
// debt first) in one transaction, so a code credits once on any number of replicas; the journal's
// reference is the code's id (`top_up:redeem:rc_...`), never the code. The same customer redeeming
// the same code again gets the same answer and no second credit. Every code that cannot be
// redeemed gets one refusal, after the same statements, whatever the reason; attempts are limited
// per key and per client address (attempts.ts).
import type { Knex } from 'knex';
import type { Caller } from '../../customers/service.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { LedgerAbort, MAX_AMOUNT, type Ledger } from '../../ledger/service.ts';
import { Failure } from '../failure.ts';
import { attemptScopes, countAttempt, giveBack, type AttemptLimits } from './attempts.ts';
import { generateRedeemCode, hashRedeemCode, newBatchId, newCodeId, redeemReference } from './codes.ts';
import { RedeemError } from './errors.ts';
import { batches, claim, codes, insertBatch, redeemedBy, voidBatchCodes, voidCode, type BatchRow, type CodeFilter, type CodeRow } from './repo.ts';

export type { AttemptLimits } from './attempts.ts';
export type { BatchRow, CodeFilter, CodeRow, CodeStatus } from './repo.ts';

export interface MintRequest {
  amount: bigint;
  count: number;
  expiresAt: Date;
  note: string | null;
}

export interface Minted {
  batch: BatchRow;
  /** The clear codes, in minting order: answered this once, never stored. */
  codes: Array<{ id: string; code: string }>;
}

/** What a redemption answers, the first time and on every replay alike. */
export interface Redemption {
  code: CodeRow;
  /** The journal reference of its credit. */
  reference: string;
}

const REFUSED = 'This code cannot be redeemed. Check that it was typed as given; a code works once, until it expires, and only if it was not withdrawn.';

export function createRedeemCodes(deps: { db: Knex; ledger: Ledger; limits: AttemptLimits; now?: () => Date }) {
  const { db, ledger, limits } = deps;
  const now = deps.now ?? (() => new Date());
  const batchNotFound = () => new Failure(RedeemError.BatchNotFound, 'No redeem code batch with this id.', { param: 'batch_id' });

  async function batch(id: string): Promise<BatchRow | Failure> {
    const [row] = await batches(db, { limit: 1, id });
    return row ?? batchNotFound();
  }

  return {
    async mint(request: MintRequest): Promise<Minted | Failure> {
      if (request.amount <= 0n || request.amount > MAX_AMOUNT) return new Failure(LedgerError.InvalidAmount, '', { param: 'amount' });
      if (request.expiresAt <= now()) return new Failure(RedeemError.ExpiryPassed, 'expires_at must be in the future.', { param: 'expires_at' });
      const id = newBatchId();
      const minted = Array.from({ length: request.count }, () => ({ id: newCodeId(), code: generateRedeemCode() }));
      await db.transaction((trx) =>
        insertBatch(
          trx,
          { id, amount: request.amount, expiresAt: request.expiresAt, note: request.note },
          minted.map((c) => ({ id: c.id, hash: hashRedeemCode(c.code) })),
        ),
      );
      return { batch: (await batch(id)) as BatchRow, codes: minted };
    },

    /** Newest first; `after` is the last batch id of the previous page. */
    listBatches: (page: { limit: number; after?: string }) => batches(db, page),
    batch,

    /** Voids every code of the batch that was not redeemed; answers the batch and how many were voided now. */
    async voidBatch(id: string, reason: string | null): Promise<{ batch: BatchRow; voided: number } | Failure> {
      if ((await batch(id)) instanceof Failure) return batchNotFound();
      const voided = await voidBatchCodes(db, id, reason);
      return { batch: (await batch(id)) as BatchRow, voided };
    },

    listCodes: (filter: CodeFilter) => codes(db, filter),

    /** Voids a code that was not redeemed; voiding it again answers it as it is. */
    async voidCode(id: string, reason: string | null): Promise<CodeRow | Failure> {
      const code = await voidCode(db, id, reason);
      if (!code) return new Failure(RedeemError.CodeNotFound, 'No redeem code with this id.', { param: 'code_id' });
      if (code.status === 'redeemed')
        return new Failure(
          RedeemError.CodeRedeemed,
          `This code was redeemed by ${code.redeemed_by} and its credit stands; to take money back, post an adjustment to that customer.`,
        );
      return code;
    },

    /** The customer's redemption of a typed code, or the one refusal (or the attempt limit). */
    async redeem(caller: Caller, typed: string, clientAddress: string, requestId: string): Promise<Redemption | Failure> {
      const scopes = attemptScopes(caller.keyId, clientAddress);
      const counted = await countAttempt(db, scopes, limits);
      if (!counted.allowed)
        return new Failure(RedeemError.AttemptsExceeded, `Too many codes were tried that could not be redeemed; retry in ${counted.retryAfter} s.`, {
          headers: { 'retry-after': String(counted.retryAfter) },
        });
      const hash = hashRedeemCode(typed);
      let claimed: CodeRow | undefined;
      try {
        claimed = await db.transaction(async (trx) => {
          const code = await claim(trx, hash, caller);
          if (!code) return undefined;
          const purpose = { source: 'redeem_code', code_id: code.id, batch_id: code.batch_id, key_id: caller.keyId, request_id: requestId };
          await ledger.topUpWithin(trx, { ref: redeemReference(code.id), customerId: caller.customerId, amount: BigInt(code.amount), purpose });
          await giveBack(trx, scopes, limits);
          return code;
        });
      } catch (error) {
        if (error instanceof LedgerAbort) return new Failure(error.code, ''); // the wallet's totals are full: nothing claimed
        throw error;
      }
      // Not claimed now: the customer's own earlier redemption (read after any claim in flight
      // has committed), or the refusal. Both take these same statements.
      const code = claimed ?? (await redeemedBy(db, hash, caller.customerId));
      if (!code) return new Failure(RedeemError.CodeRefused, REFUSED, { param: 'code' });
      if (!claimed) await db.transaction((trx) => giveBack(trx, scopes, limits));
      return { code, reference: `top_up:${redeemReference(code.id)}` };
    },
  };
}

export type RedeemCodes = ReturnType<typeof createRedeemCodes>;
