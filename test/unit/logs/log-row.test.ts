import { expect } from 'chai';
import { EMPTY_LOG_FIELDS, LOG_COLUMN_NAMES, logRow, newLogEntry, type RequestLogEntry } from '../../../src/logs/log-row.ts';

const entry: RequestLogEntry = {
  ...EMPTY_LOG_FIELDS,
  request_id: 'req_1',
  customer_id: 'cus_1',
  key_id: 'key_1',
  endpoint: 'messages_create',
  status: 200,
  error_type: null,
  latency_ms: 12,
  created_at: new Date('2026-11-27T00:00:00Z'),
  model: 'm\u0000odel',
  cost: 1234n,
  debt: 0n,
  hold_amount: 99n,
  upstream_error: 'ECONNRESET',
  usage_detail: { web_search_requests: 2 },
};

describe('request log row', () => {
  it('starts from an entry with the head first, then every field empty, as the spread of EMPTY_LOG_FIELDS made it', () => {
    const fresh = newLogEntry();
    const head = 'request_id client_request_id customer_id key_id endpoint status error_type latency_ms created_at'.split(' ');
    expect(Object.keys(fresh)).to.deep.equal([...head, ...Object.keys(EMPTY_LOG_FIELDS)]);
    expect(Object.fromEntries(Object.entries(fresh).slice(head.length))).to.deep.equal(EMPTY_LOG_FIELDS);
    expect(fresh.created_at.getTime()).to.equal(0);
    expect(newLogEntry()).to.not.equal(fresh); // a new one each time: each request's own
  });

  it('names every column the insert writes, in its order, and nothing else', () => {
    expect(Object.keys(logRow(entry))).to.deep.equal(LOG_COLUMN_NAMES);
  });

  it('writes amounts as decimal text, unstorable text replaced, defaults for what the entry leaves out', () => {
    const row = logRow(entry);
    expect(row).to.include({ cost: '1234', debt: '0', hold_amount: '99', free_units: null, model: 'm\ufffdodel', client_request_id: null, swept: false });
    expect(row.usage_detail).to.deep.equal({ web_search_requests: 2 });
    expect(JSON.parse(JSON.stringify(row))).to.include({ created_at: '2026-11-27T00:00:00.000Z', status: 200 });
  });
});
