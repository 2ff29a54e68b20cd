// A simulated provider's tasks kept in a state file: read back by the next book (a restarted
// gateway's simulator), cancellations and deletions included, a line cut short by a crash skipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTaskBook } from '../../../src/sandbox/task-book.ts';

describe('sandbox task book with a state file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-book-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads back tasks, their cancellation and removal, and skips a torn last line', () => {
    const stateFile = path.join(dir, 'sandbox-ark.jsonl');
    const first = createTaskBook({ idPrefix: 'cgt-', stateFile });
    const kept = first.add({ model: 'm', prompt: 'a cat [[sim duration=7]]' }, 'a cat [[sim duration=7]]', { kind: 'text2video' });
    const cancelled = first.add({ model: 'm' });
    const removed = first.add({ model: 'm' });
    first.cancel(cancelled);
    first.remove(removed.id);
    fs.appendFileSync(stateFile, '{"op":"add","task":{"id":"torn'); // the process died mid-write

    const second = createTaskBook({ idPrefix: 'cgt-', stateFile });
    expect([...second.tasks.keys()]).to.deep.equal([kept.id, cancelled.id]);
    expect(second.tasks.get(kept.id)).to.deep.equal(kept);
    expect(second.byAsset(kept.asset)?.id).to.equal(kept.id);
    expect(second.phase(second.tasks.get(cancelled.id)!)).to.equal('cancelled');
    expect(second.byAsset(removed.asset)).to.equal(undefined);
    // Read back, the file holds the live tasks alone.
    expect(fs.readFileSync(stateFile, 'utf8').trim().split('\n')).to.have.length(2);
    second.clear();
    expect([...createTaskBook({ idPrefix: 'cgt-', stateFile }).tasks.keys()]).to.deep.equal([]);
  });
});
