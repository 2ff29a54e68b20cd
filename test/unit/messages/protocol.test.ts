import { expect } from 'chai';
import { anthropicMessages, inspectMessages, upstreamBody } from '../../../src/domain/messages/protocol.ts';
import { parseFrame } from '../../../src/domain/passthrough/sse.ts';
import { Failure } from '../../../src/domain/failure.ts';
import { UpstreamError } from '../../../src/providers/types.ts';

const request = (raw: string) => ({
  caller: { customerId: 'cus_1', keyId: 'key_1', allowedModels: null, limited: false },
  requestId: 'req_1',
  endpoint: 'messages_create',
  body: JSON.parse(raw),
  rawBody: Buffer.from(raw),
  headers: {},
});

describe('the Anthropic messages protocol', () => {
  it('reads only model, max_tokens, messages and stream, and names the first wrong one', () => {
    const ok = {
      max_tokens: 10,
      messages: [
        { role: 'system', content: 'x' },
        { role: 'future_role', content: [] },
      ],
    };
    expect(inspectMessages(ok, 100)).to.deep.equal({ stream: false, maxTokens: 10 });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, max_tokens: undefined }, 'max_tokens'],
      [{ ...ok, max_tokens: 1e20 }, 'max_tokens'],
      [{ ...ok, max_tokens: 101 }, 'max_tokens'],
      [{ ...ok, messages: [] }, 'messages'],
      [{ ...ok, messages: ['user'] }, 'messages.0'],
      [{ ...ok, messages: [{ role: 3 }] }, 'messages.0.role'],
      [{ ...ok, stream: 'yes' }, 'stream'],
    ];
    for (const [body, param] of cases) {
      const failure = inspectMessages(body, 100);
      expect(failure, param).to.be.instanceOf(Failure);
      expect((failure as Failure).details.param).to.equal(param);
    }
  });

  it('forwards the client bytes with only the top-level model changed', () => {
    const raw = '{"model":"pub/x", "max_tokens":1,"metadata":{"model":"pub/x"},"n":1.0,"messages":[{"role":"user","content":"\\u00e9"}]}';
    expect(upstreamBody(request(raw), 'claude-up')).to.equal(raw.replace('"model":"pub/x"', '"model":"claude-up"'));
  });

  it('relays frames as received, rewriting only the model of message_start, unknown events untouched', () => {
    const reader = anthropicMessages.reader(request('{}'), { stream: true, inputTokens: 5, maxOutputTokens: 100 }, 'pub/x', 'claude-up');
    const start =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude-up","usage":{"input_tokens":3,"output_tokens":1}}}\n\n';
    expect(reader.frame(parseFrame(start))).to.equal(start.replace('"model":"claude-up"', '"model":"pub/x"'));
    const unknown = 'event: tool_progress\ndata: {"type":"tool_progress","model":"claude-up"}\n\n';
    expect(reader.frame(parseFrame(unknown))).to.equal(unknown);
    expect(reader.complete()).to.equal(false);
    reader.frame(parseFrame('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect(reader.complete()).to.equal(true);
  });

  it('passes a provider refusal on with its status and type, its text without hosts or ids', () => {
    const error = new UpstreamError(
      'status',
      false,
      400,
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'claude-up: bad field (request id: req_011CVXYZabcdef) at https://internal.example.com/x' },
      }),
    );
    const failure = anthropicMessages.failure(error, { upstreamModel: 'claude-up' } as never, 'pub/x');
    expect(failure.details.upstream).to.deep.equal({ status: 400, type: 'invalid_request_error' });
    expect(failure.message).to.include('pub/x: bad field').and.not.include('req_011').and.not.include('internal.example.com');
    expect(anthropicMessages.failure(new UpstreamError('status', false, 401), { upstreamModel: 'u' } as never, 'p').code).to.equal('upstream_auth_failed');
    expect(anthropicMessages.failure(new UpstreamError('timeout', true), { upstreamModel: 'u' } as never, 'p').code).to.equal('upstream_timeout');
  });
});
