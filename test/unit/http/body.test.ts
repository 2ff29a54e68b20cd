import { expect } from 'chai';
import { checkJson, MAX_JSON_DEPTH } from '../../../src/http/body.ts';
import { assignBracketKey } from '../../../src/http/multipart.ts';

describe('request bodies', () => {
  it('refuses nesting past the limit without recursion, naming where', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(checkJson({ metadata: deep }, false)?.message).to.match(/nests deeper than 128/);
    let fine: unknown = 'x';
    for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) fine = [fine];
    expect(checkJson({ a: fine }, false)).to.equal(null);
  });

  it('refuses __proto__ keys, and NUL or unpaired surrogates in bodies that are stored, naming the field only', () => {
    expect(checkJson(JSON.parse('{"a":{"__proto__":{"x":1}}}'), false)).to.deep.include({ param: 'a.__proto__' });
    expect(checkJson({ prompt: 'a\u0000b' }, true)).to.deep.include({ param: 'prompt' });
    expect(checkJson({ prompt: 'lone \ud800 high' }, true)).to.deep.include({ param: 'prompt' });
    expect(checkJson({ prompt: 'lone \udc00 low' }, true)?.message).to.not.include('lone');
    expect(checkJson({ prompt: 'pair 😀 ok' }, true)).to.equal(null);
    expect(checkJson({ prompt: 'a\u0000b' }, false)).to.equal(null); // forwarded, never stored
  });

  it('checks any JSON value: scalar roots, problems deep in arrays of objects named by their path, keys', () => {
    for (const root of [null, 0, true, 'text', [], {}]) expect(checkJson(root, true), JSON.stringify(root)).to.equal(null);
    expect(checkJson('a\u0000', true)).to.deep.include({ param: null });
    expect(checkJson('a\u0000', false)).to.equal(null);
    expect(checkJson(JSON.parse('{"tools":[1,{"input_schema":{"__proto__":{}}}]}'), false)).to.deep.include({ param: 'tools.1.input_schema.__proto__' });
    expect(checkJson({ messages: [{ content: 'ok' }, { content: ['x', 'y \ud800'] }] }, true)).to.deep.include({ param: 'messages.1.content.1' });
    expect(checkJson({ a: { 'k\u0000': 1 } }, true)).to.deep.include({ param: 'a' });
    expect(checkJson({ a: { 'k\u0000': 1 } }, false)).to.equal(null);
    // Millions of small values (a body a client may send within the size limit) pass as they are.
    expect(checkJson({ tools: new Array(2_000_000).fill(0), messages: [{ role: 'user', content: 'hi' }] }, true)).to.equal(null);
  });

  it('builds multipart fields without prototypes and refuses prototype-shaped names', () => {
    const body = Object.create(null) as Record<string, unknown>;
    expect(assignBracketKey(body, '__proto__[x]', '1')).to.match(/not accepted/);
    expect(assignBracketKey(body, 'constructor[prototype][x]', '1')).to.match(/not accepted/);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
    assignBracketKey(body, 'content[][type]', 'text');
    assignBracketKey(body, 'content[][text]', 'hi');
    assignBracketKey(body, 'content[][type]', 'image_url');
    assignBracketKey(body, 'input_reference[image_url]', 'https://x/y.png');
    expect(JSON.parse(JSON.stringify(body))).to.deep.equal({
      content: [{ type: 'text', text: 'hi' }, { type: 'image_url' }],
      input_reference: { image_url: 'https://x/y.png' },
    });
    expect(assignBracketKey(body, 'a[b][c][d][e][f][g][h][i]', '1')).to.match(/too deeply/);
  });
});
