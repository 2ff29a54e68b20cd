// The body collector behind upstream error texts and task answers.
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { collect } from '../../../src/providers/http.ts';

describe('collect (an upstream body as text)', () => {
  it('keeps a character whose bytes arrive in two chunks whole', async () => {
    const bytes = Buffer.from('{"message":"任务不存在"}');
    const split = Readable.from([bytes.subarray(0, 14), bytes.subarray(14)]); // inside the first CJK character
    expect(await collect(split)).to.equal('{"message":"任务不存在"}');
  });

  it('stops at the limit in bytes and destroys the stream', async () => {
    const stream = Readable.from([Buffer.alloc(10, 'a'), Buffer.alloc(10, 'b'), Buffer.alloc(10, 'c')]);
    expect(await collect(stream, 15)).to.equal('aaaaaaaaaabbbbb');
    expect(stream.destroyed).to.equal(true);
  });

  it('answers what arrived when the body breaks', async () => {
    const stream = new Readable({ read() {} });
    stream.push(Buffer.from('partial'));
    setImmediate(() => stream.destroy(new Error('socket hang up')));
    expect(await collect(stream)).to.equal('partial');
  });
});
