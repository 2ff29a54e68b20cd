import { expect } from 'chai';
import type { ResolvedModel } from '../../../src/catalogue/store.ts';
import { upstreamChatBody } from '../../../src/domain/chat/body.ts';
import { checkChat, DEFAULT_MAX_OUTPUT_TOKENS, inspectChat, MAX_TOKENS_CAP } from '../../../src/domain/chat/fields.ts';
import { chatBoundLines } from '../../../src/domain/chat/protocol.ts';
import { Failure } from '../../../src/domain/failure.ts';
import type { Inspected, PassthroughRequest } from '../../../src/domain/passthrough/protocol.ts';
import { costOf } from '../../../src/pricing/cost.ts';

const model = (max_output_tokens?: number) => ({ id: 'v/m', group: 'chat', ...(max_output_tokens ? { max_output_tokens } : {}) }) as unknown as ResolvedModel;
const messages = [{ role: 'user', content: 'hi' }];
const problem = (failure: Failure | unknown) => (failure instanceof Failure ? { param: failure.details.param, message: failure.message } : failure);

/** A body as the HTTP layer hands it over: the raw text and its parse (1e400 parses as Infinity). */
const request = (raw: string): PassthroughRequest => ({
  body: JSON.parse(raw),
  rawBody: Buffer.from(raw),
  headers: {},
  requestId: 'req_1',
  endpoint: 'chat_completions_create',
  caller: {} as never,
});

describe('chat: the fields the gateway reads', () => {
  it('accepts what OpenAI accepts, nulls included, and leaves every other field alone', () => {
    expect(checkChat({ model: 'v/m', messages })).to.equal(undefined);
    expect(
      checkChat({
        messages,
        stream: null,
        n: null,
        max_tokens: null,
        max_completion_tokens: null,
        stream_options: null,
        tools: 'anything',
        brand_new: { x: 1 },
      }),
    ).to.equal(undefined);
    expect(checkChat({ messages: [{ role: 'a-role-from-2027', content: [{ type: 'hologram' }] }] })).to.equal(undefined);
  });

  it('names the first field that is wrong, before the model is looked up', () => {
    expect(problem(checkChat({}))).to.deep.equal({ param: 'messages', message: 'messages must be a non-empty array.' });
    expect(problem(checkChat({ messages: [] }))).to.include({ param: 'messages' });
    expect(problem(checkChat({ messages: ['hi'] }))).to.include({ param: 'messages[0]' });
    expect(problem(checkChat({ messages: [{ content: 'x' }] }))).to.include({ param: 'messages[0].role' });
    expect(problem(checkChat({ messages, stream: 'yes' }))).to.include({ param: 'stream' });
    expect(problem(checkChat({ messages, stream_options: true }))).to.include({ param: 'stream_options' });
    for (const bad of [0, -1, 1.5, '10', Infinity]) {
      expect(problem(checkChat({ messages, max_tokens: bad })), String(bad)).to.deep.equal({
        param: 'max_tokens',
        message: 'max_tokens must be a positive integer.',
      });
      expect(problem(checkChat({ messages, max_completion_tokens: bad }))).to.include({ param: 'max_completion_tokens' });
    }
    for (const bad of [0, 129, 2.5, '2'])
      expect(problem(checkChat({ messages, n: bad })), String(bad)).to.deep.equal({ param: 'n', message: 'n must be an integer from 1 to 128.' });
  });

  it('refuses limits past the model or the cap with a 400, never a crash: 2^63 and 1e400', () => {
    const huge = request(`{"model":"v/m","messages":[{"role":"user","content":"x"}],"max_tokens":9223372036854775808}`);
    expect(checkChat(huge.body)).to.equal(undefined);
    expect(problem(inspectChat(huge.body, model()))).to.deep.equal({
      param: 'max_tokens',
      message: `max_tokens: the value is greater than the maximum allowed for this model (${MAX_TOKENS_CAP}).`,
    });
    const infinite = request(`{"model":"v/m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":1e400}`);
    expect(problem(checkChat(infinite.body))).to.include({ param: 'max_completion_tokens' });
    expect(problem(inspectChat({ messages, max_completion_tokens: 5000 }, model(4096)))).to.deep.equal({
      param: 'max_completion_tokens',
      message: 'max_completion_tokens: 5000 is greater than the maximum allowed for this model (4096).',
    });
  });

  it('bounds output by the larger limit asked for times n, else the model limit, else the default', () => {
    const bound = (body: Record<string, unknown>, max?: number) => (inspectChat({ messages, ...body }, model(max)) as Inspected).maxOutputTokens;
    expect(bound({ max_tokens: 100 })).to.equal(100);
    expect(bound({ max_tokens: 100, max_completion_tokens: 300, n: 3 })).to.equal(900);
    expect(bound({ n: 2 }, 4096)).to.equal(8192);
    expect(bound({})).to.equal(DEFAULT_MAX_OUTPUT_TOKENS);
    expect((inspectChat({ messages, stream: true }, model()) as Inspected).stream).to.equal(true);
  });

  it('reserves input at the dearer input rate and all output, at the priority premium when priced', () => {
    const inspected: Inspected = { stream: false, inputTokens: 1000, maxOutputTokens: 2000 };
    expect(costOf(chatBoundLines({ input_per_mtok: '0.50', output_per_mtok: '1.50', cache_read_per_mtok: '0.25' }, inspected))).to.equal(500n + 3000n);
    expect(costOf(chatBoundLines({ input_per_mtok: '1', output_per_mtok: '2', multipliers: { priority: '2' } }, inspected))).to.equal(2n * (1000n + 4000n));
  });
});

describe('chat: the body the provider receives', () => {
  const raw = '{"model":"v/m" , "messages":[{"role":"user","content":"h\\u00e9"}],"seed":9223372036854775807,"temperature":1.0,"x_new":{}';
  it('is the client body byte for byte but for model on a non-streaming request', () => {
    expect(upstreamChatBody(request(`${raw}}`), 'up-1', false)).to.equal(`${raw.replace('"v/m"', '"up-1"')}}`);
    // Even a client's stream_options stays as sent: the provider answers for it, as it would have.
    expect(upstreamChatBody(request(`${raw},"stream_options":{"include_usage":true}}`), 'up-1', false)).to.include('"stream_options":{"include_usage":true}');
  });

  it('asks for usage on a stream, keeping the client stream options', () => {
    const base = `${raw.replace('"v/m"', '"up-1"')},"stream":true`;
    expect(upstreamChatBody(request(`${raw},"stream":true}`), 'up-1', true)).to.equal(`${base},"stream_options":{"include_usage":true}}`);
    expect(upstreamChatBody(request(`${raw},"stream":true,"stream_options":{"include_obfuscation":false}}`), 'up-1', true)).to.equal(
      `${base},"stream_options":{"include_obfuscation":false,"include_usage":true}}`,
    );
    expect(upstreamChatBody(request(`${raw},"stream":true,"stream_options":{"include_usage":false}}`), 'up-1', true)).to.equal(
      `${base},"stream_options":{"include_usage":true}}`,
    );
    expect(upstreamChatBody(request(`${raw},"stream":true,"stream_options":null}`), 'up-1', true)).to.equal(`${base},"stream_options":{"include_usage":true}}`);
    const asked = `${raw},"stream":true,"stream_options": {"include_usage": true}}`;
    expect(upstreamChatBody(request(asked), 'up-1', true)).to.equal(asked.replace('"v/m"', '"up-1"'));
  });
});
