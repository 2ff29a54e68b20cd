// Child processes of a script (the bench's upstream, gateway and peer) that must not outlive it.
// Each child leads its own process group (`detached`), so one signal reaches it and whatever it
// started (npx starts node); a terminal's Ctrl-C does not reach them directly, so this process
// stops them: on SIGINT, on SIGTERM (a process manager, `kill`), and on a normal exit.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface ChildGroup {
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** SIGTERM to one child's group, SIGKILL if it is still there after `graceMs`; resolves once it is gone. */
  stop(child: ChildProcess, graceMs?: number): Promise<void>;
  /** SIGTERM to every group, SIGKILL to what is left after `graceMs`; resolves once all are gone. */
  stopAll(graceMs?: number): Promise<void>;
}

export function createChildGroup(): ChildGroup {
  const children: ChildProcess[] = [];
  const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      /* the whole group is gone */
    }
  };
  const groupAlive = (child: ChildProcess) => {
    try {
      if (child.pid) process.kill(-child.pid, 0);
      return Boolean(child.pid);
    } catch {
      return false;
    }
  };
  let stopping: Promise<void> | undefined;
  // On a plain exit (the end of main, process.exit) nothing can be awaited: signal synchronously.
  process.on('exit', () => children.forEach((child) => signalGroup(child, 'SIGTERM')));

  return {
    spawn(command, args, options = {}) {
      const child = spawn(command, args, { ...options, detached: true });
      children.push(child);
      return child;
    },
    async stop(child, graceMs = 10_000) {
      signalGroup(child, 'SIGTERM');
      const deadline = Date.now() + graceMs;
      while (groupAlive(child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (groupAlive(child)) signalGroup(child, 'SIGKILL');
      while (groupAlive(child) && Date.now() < deadline + 2_000) await new Promise((r) => setTimeout(r, 50));
      const index = children.indexOf(child);
      if (index >= 0) children.splice(index, 1);
    },
    stopAll(graceMs = 10_000) {
      stopping ??= (async () => {
        for (const child of children) signalGroup(child, 'SIGTERM');
        const deadline = Date.now() + graceMs;
        while (children.some(groupAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        for (const child of children.filter(groupAlive)) signalGroup(child, 'SIGKILL');
      })();
      return stopping;
    },
  };
}

/** SIGINT and SIGTERM stop every child (gracefully, then by force) and exit with 128 + signal. */
export function stopOnSignals(group: ChildGroup, log: (message: string) => void = () => undefined): void {
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping child processes`);
    void group.stopAll().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
