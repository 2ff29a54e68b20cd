// CPU time and resident memory of processes, read from /proc (Linux).
import fs from 'node:fs';

/** User + system CPU time of one process from its /proc stat line (USER_HZ is 100 on Linux). */
function ownCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
}

/** Direct children of a process (every thread's list). */
export function childPids(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return []; // gone
  }
}

/** CPU time of one process, with its descendants unless `own` (npx runs the peer as a child). */
export function cpuMs(pid: number, own = false): number {
  try {
    let total = ownCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    if (!own) for (const child of childPids(pid)) total += cpuMs(child);
    return total;
  } catch {
    return 0; // gone
  }
}

/**
 * A running total of the CPU time (ms) PostgreSQL spends for one database: the backends serving it
 * (`postgres: <user> <database> ...`) and the server's own writers (WAL writer, checkpointer,
 * background writer), read per process and summed as increments, so that a backend that exits
 * between two reads never makes the total go back, and another database's work on the same server
 * (another test run) is not counted.
 */
export function postgresCpuMeter(database: string): () => number {
  const last = new Map<number, number>();
  let total = 0;
  // "postgres: [cluster: ]user database host(port) state", or "postgres: [cluster: ]walwriter"
  const ours = (cmdline: string) => {
    const rest = /^postgres: (?:\S+: )?(.*)$/.exec(cmdline)?.[1];
    return rest !== undefined && (rest.split(' ')[1] === database || /^(walwriter|checkpointer|background writer)/.test(rest));
  };
  return () => {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (!stat.includes('(postgres)') || !ours(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '))) continue;
        const pid = Number(entry);
        const now = ownCpuMs(stat);
        total += now - (last.get(pid) ?? now);
        last.set(pid, now);
      } catch {
        /* gone */
      }
    }
    return total;
  };
}

export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN') / 1024;
  } catch {
    return Number.NaN; // gone
  }
}

/** The child of `pid` whose command line contains `needle` (the embedded database's process). */
export function findChild(pid: number, needle: string): number | undefined {
  return childPids(pid).find((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}
