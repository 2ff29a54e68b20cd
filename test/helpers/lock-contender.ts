// One process trying to take the data directory's lock at a given instant, for the race test:
// prints `won` or `lost: <message>`, then holds what it got until its stdin closes.
import { acquireLock, holderForThisProcess } from '../../src/db/embedded/lock.ts';

const [dir, at] = process.argv.slice(2);
process.stdout.write('waiting\n');
while (Date.now() < Number(at)); // spin: every contender goes at the same instant
try {
  await acquireLock(dir!, holderForThisProcess());
  process.stdout.write('won\n');
} catch (error) {
  process.stdout.write(`lost: ${(error as Error).message}\n`);
}
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
