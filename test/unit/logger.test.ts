import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { createLogger, stdoutLines } from '../../src/logger.ts';

/** A stand-in for process.stdout that records what reached it, and when it was corked. */
class FakeStdout extends EventEmitter {
  writes: string[] = [];
  flushed: string[][] = [];
  private held: string[] = [];
  private corks = 0;
  cork() {
    this.corks++;
  }
  uncork() {
    this.corks--;
    if (this.corks === 0) this.flushed.push(this.held.splice(0));
  }
  write(line: string) {
    this.writes.push(line);
    if (this.corks > 0) this.held.push(line);
    else this.flushed.push([line]);
    return true;
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('log lines to stdout', () => {
  it('leaves together, once per turn of the event loop, every line of that turn in order', async () => {
    const stdout = new FakeStdout();
    const lines = stdoutLines(stdout);
    lines.write('a\n');
    lines.write('b\n');
    expect(stdout.flushed).to.deep.equal([]);
    await turn();
    lines.write('c\n');
    await turn();
    expect(stdout.flushed).to.deep.equal([['a\n', 'b\n'], ['c\n']]);
  });

  it('stops writing once the reader has gone (EPIPE), as pino does', async () => {
    const stdout = new FakeStdout();
    const lines = stdoutLines(stdout);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    stdout.emit('error', epipe);
    lines.write('lost\n');
    await turn();
    expect(stdout.writes).to.deep.equal([]);
  });

  it('still redacts secrets by path in a line that carries them', () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void written.push(line) });
    logger.info({ headers: { authorization: 'Bearer sk-secret', 'x-api-key': 'sk-other' } }, 'x');
    expect(written.join('')).not.to.include('sk-');
    expect(written.join('')).to.include('[redacted]');
  });
});
