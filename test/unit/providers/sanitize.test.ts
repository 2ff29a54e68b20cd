import { expect } from 'chai';
import { sanitizeForLog, sanitizeUpstreamMessage, upstreamErrorParts } from '../../../src/providers/sanitize.ts';

describe('sanitising provider error text', () => {
  it('keeps the explanation, takes out hosts, URLs, addresses, ids and keys, and names models publicly', () => {
    const text =
      'model claude-x-2025: max_tokens too large. Upstream https://llm.internal.example.com:8443/v1/messages via 10.0.0.7:443 (request id: req_011CVXabcdefgh) key sk-ant-api03-abcdefghij uuid 123e4567-e89b-12d3-a456-426614174000 task 12345678901';
    const clean = sanitizeUpstreamMessage(text, [['claude-x-2025', 'vendor/claude']]);
    expect(clean).to.include('model vendor/claude: max_tokens too large.');
    for (const secret of ['llm.internal', '10.0.0.7', 'req_011', 'sk-ant', '123e4567', '12345678901', 'https://']) expect(clean, secret).to.not.include(secret);
  });

  it('gives nothing when nothing readable is left', () => {
    expect(sanitizeUpstreamMessage('https://x.example.com/a 10.1.1.1')).to.equal('');
  });

  it('keeps ids in our logs for support, never hosts or keys', () => {
    const logged = sanitizeForLog('failed at https://h.example.com req_011CVXabcdefgh sk-live-abcdefghijk')!;
    expect(logged).to.include('req_011CVXabcdefgh').and.not.include('h.example.com').and.not.include('sk-live');
  });

  it('reads the error parts of the usual shapes', () => {
    expect(upstreamErrorParts('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).to.deep.equal({
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    expect(upstreamErrorParts('{"error":{"message":"bad","type":"invalid_request_error","code":"x"}}')).to.deep.equal({
      type: 'invalid_request_error',
      message: 'bad',
    });
    expect(upstreamErrorParts('{"message":"plain"}')).to.deep.equal({ type: undefined, message: 'plain' });
    expect(upstreamErrorParts('<html>')).to.deep.equal({ type: undefined, message: undefined });
  });
});
