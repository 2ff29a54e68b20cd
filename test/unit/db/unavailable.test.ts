import { expect } from 'chai';
import { isDatabaseUnavailable, QueryTimeoutError } from '../../../src/db/unavailable.ts';

const withCode = (message: string, code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, ...extra });

describe('isDatabaseUnavailable: a 503 to retry, or a fault of ours (500)', () => {
  it('recognises a database that cannot answer now', () => {
    for (const error of [
      new QueryTimeoutError(1000),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('connect ENOENT /tmp/gateway-db-x/.s.PGSQL.5432', 'ENOENT', { syscall: 'connect' }),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('sorry, too many clients already', '53300'),
      withCode('could not extend file: No space left on device', '53100'),
      withCode('connection failure', '08006'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout expired'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('insert failed', { cause: new QueryTimeoutError(1000) }),
      // knex names the statement first: seen as a 500 while a huge body held the event loop
      new Error('ROLLBACK - Client has encountered a connection error and is not queryable'),
      new Error('insert into "request_logs" ("id") values ($1) - Connection terminated unexpectedly'),
    ]) {
      expect(isDatabaseUnavailable(error), error.message).to.equal(true);
    }
  });

  it('does not excuse faults of the gateway or of the data', () => {
    for (const error of [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      withCode('duplicate key value violates unique constraint "ledger_entries_reference_unique"', '23505'),
      withCode('new row violates check constraint "wallets_balance_check"', '23514'),
      withCode('deadlock detected', '40P01'),
      withCode("ENOENT: no such file or directory, open 'catalogue.yaml'", 'ENOENT', { syscall: 'open' }),
      new Error('a timeout of the provider'),
      new Error('select 1 - column "Connection terminated" does not exist'),
    ]) {
      expect(isDatabaseUnavailable(error), error.message).to.equal(false);
    }
    expect(isDatabaseUnavailable('Connection terminated')).to.equal(false); // not an Error
  });
});
