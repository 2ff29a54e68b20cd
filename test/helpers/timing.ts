// TEST_TIMING=<file>: one JSON line per test file with its wall time and the CPU time it cost this
// process and every process under it (children reaped meanwhile, and the live ones: the worker's
// embedded database, a child gateway), to see where a run's time goes (docs/testing.md).
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime, and the reaped children's cutime + cstime, of one process (ms); 0 once it is gone. */
function processCpu(pid: number | 'self'): { own: number; reaped: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { own: (Number(fields[11]) + Number(fields[12])) * TICK_MS, reaped: (Number(fields[13]) + Number(fields[14])) * TICK_MS };
  } catch {
    return { own: 0, reaped: 0 };
  }
}

function childrenOf(pid: number | 'self'): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** CPU of the process and its whole live tree, plus what its reaped children used (ms). */
function treeCpu(pid: number | 'self' = 'self'): number {
  const { own, reaped } = processCpu(pid);
  return own + reaped + childrenOf(pid).reduce((sum, child) => sum + treeCpu(child), 0);
}

export function fileTiming(out: string | undefined): { start(): void; stop(file: string | undefined): void } | undefined {
  if (!out) return undefined;
  let began = { wall: 0, cpu: 0 };
  return {
    start: () => void (began = { wall: Date.now(), cpu: treeCpu() }),
    stop(file) {
      const line = { file, worker: process.pid, wallMs: Date.now() - began.wall, cpuMs: treeCpu() - began.cpu };
      fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
    },
  };
}
