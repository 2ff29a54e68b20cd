import { expect } from 'chai';
import { Failure } from '../../../src/domain/failure.ts';
import { readClientEvent, type ClientTurn } from '../../../src/domain/responses/socket/client-event.ts';
import { Continuation, OutputCollector } from '../../../src/domain/responses/socket/continuation.ts';

const turn = (text: string): ClientTurn => {
  const read = readClientEvent(text);
  if (read instanceof Failure) throw new Error(read.message);
  return read;
};

describe('responses over WebSocket: the client message and the remembered context', () => {
  it('cuts the envelope out of the client bytes, keeps everything else as sent and asks the provider for a stream', () => {
    const read = turn('{"type":"response.create", "stream_id":"a.1","model":"m","generate":true,"input":"hi","n":1.50,"x_new":{"k":[1]}}');
    expect(read.text).to.equal('{"model":"m","input":"hi","n":1.50,"x_new":{"k":[1]},"stream":true}');
    expect(read).to.deep.include({ streamId: 'a.1', warmup: false });
    expect(read.body).to.deep.equal({ model: 'm', input: 'hi', n: 1.5, x_new: { k: [1] }, stream: true });
    expect(turn('{"type":"response.create","model":"m","stream":true,"generate":false}')).to.deep.include({
      warmup: true,
      text: '{"model":"m","stream":true}',
    });
  });

  it('refuses what is not a response.create it can relay, naming the field', () => {
    const refusal = (text: string) => (readClientEvent(text) as Failure).details.param;
    expect(refusal('not json')).to.equal(null);
    expect(refusal('[1]')).to.equal(null);
    expect(refusal('{"type":"response.cancel"}')).to.equal('type');
    expect(refusal('{"type":"response.create","stream_id":"a b"}')).to.equal('stream_id');
    expect(refusal('{"type":"response.create","generate":"no"}')).to.equal('generate');
    expect(refusal('{"type":"response.create","background":true}')).to.equal('background');
  });

  it('sends a turn continuing the latest store: false response with its items, and forgets it after a stored one', () => {
    const memory = new Continuation(1_000_000);
    const warm = memory.warmup(turn('{"type":"response.create","model":"m","store":false,"input":"context","generate":false}'));
    const first = memory.expand(
      turn(`{"type":"response.create","model":"m","store":false,"previous_response_id":"${warm}","input":[{"type":"message","role":"user","content":"q"}]}`),
    );
    expect(first.body).to.not.have.property('previous_response_id');
    expect(JSON.parse(first.text)).to.deep.equal(first.body);
    expect(first.body.input).to.deep.equal([
      { type: 'message', role: 'user', content: 'context' },
      { type: 'message', role: 'user', content: 'q' },
    ]);
    const output = [{ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }];
    memory.answered('resp_1', first, output);
    const second = memory.expand(
      turn(
        '{"type":"response.create","model":"m","store":false,"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"ok"}]}',
      ),
    );
    expect((second.body.input as unknown[]).slice(2)).to.deep.equal([...output, { type: 'function_call_output', call_id: 'c1', output: 'ok' }]);
    memory.answered('resp_2', turn('{"type":"response.create","model":"m","store":true,"input":"x"}'), []);
    const stale = turn('{"type":"response.create","model":"m","previous_response_id":"resp_1","input":"y"}');
    expect(memory.expand(stale)).to.equal(stale); // not remembered: the provider judges it
  });

  it('keeps the id a remembered response continued itself, and remembers nothing past its bound', () => {
    const memory = new Continuation(1_000_000);
    memory.answered('resp_b', turn('{"type":"response.create","model":"m","store":false,"previous_response_id":"resp_a","input":"x"}'), []);
    const next = memory.expand(turn('{"type":"response.create","model":"m","store":false,"previous_response_id":"resp_b","input":"y"}'));
    expect(next.body.previous_response_id).to.equal('resp_a');
    expect(JSON.parse(next.text).previous_response_id).to.equal('resp_a');
    const small = new Continuation(10);
    small.answered('resp_c', turn('{"type":"response.create","model":"m","store":false,"input":"a long enough input"}'), []);
    const after = turn('{"type":"response.create","model":"m","previous_response_id":"resp_c","input":"z"}');
    expect(small.expand(after)).to.equal(after);
  });

  it("collects a response's output from the terminal event, else from each item done; a failed one has none", () => {
    const collect = (events: Array<Record<string, unknown>>) => {
      const collector = new OutputCollector();
      for (const event of events) collector.observe(event);
      return collector;
    };
    const item = { type: 'message', id: 'm1' };
    const done = collect([
      { type: 'response.created', response: { id: 'resp_1' } },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: { id: 'resp_1', output: [] } },
    ]);
    expect(done.id).to.equal('resp_1');
    expect(done.output()).to.deep.equal([item]);
    expect(collect([{ type: 'response.completed', response: { id: 'r', output: [item, item] } }]).output()).to.deep.equal([item, item]);
    expect(collect([{ type: 'response.failed', response: { id: 'r', output: [item] } }]).output()).to.equal(undefined);
  });
});
