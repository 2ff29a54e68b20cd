// One process per embedded data directory. PGlite has no locking of its own: two processes that
// open one directory both write to it and silently lose data. The database process holds this lock
// for as long as it has the directory open; the gateway it serves is named for the operator.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LockHolder {
  /** The database process that has the directory open. */
  pid: number;
  /** The gateway it serves: the process an operator knows and would stop. */
  gatewayPid: number;
  hostname: string;
  startedAt: string;
  /** Boot id and start time of each process (Linux), so that a reused pid is not taken for it. */
  identity?: string | undefined;
  gatewayIdentity?: string | undefined;
}

export class DataDirInUseError extends Error {}

export const lockFileIn = (dir: string): string => path.join(dir, 'gateway.lock');

/** Who this process is, for a lock it writes: pid, parent, host, start, identities. */
export function holderForThisProcess(): LockHolder {
  return {
    pid: process.pid,
    gatewayPid: process.ppid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    identity: identityOf(process.pid),
    gatewayIdentity: identityOf(process.ppid),
  };
}

function identityOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' '); // from field 3, the state
    if (fields[0] === 'Z') return undefined; // exited, not yet reaped: it holds nothing
    return `${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${fields[19]}`; // field 22: start time
  } catch {
    return undefined;
  }
}

const HAS_PROC = identityOf(process.pid) !== undefined;

function isRunning(pid: number, identity: string | undefined): boolean {
  if (identity && HAS_PROC) return identityOf(pid) === identity;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** held: in use; closing: its gateway is gone and it is shutting down; stale: nobody. */
type Standing = 'held' | 'closing' | 'stale' | 'elsewhere';

function standingOf(holder: LockHolder): Standing {
  if (holder.hostname !== os.hostname()) return 'elsewhere';
  if (!isRunning(holder.pid, holder.identity)) return 'stale';
  return isRunning(holder.gatewayPid, holder.gatewayIdentity) ? 'held' : 'closing';
}

function readHolder(file: string): LockHolder | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    // No lock, or no directory yet (opening it will say what is wrong with it).
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code!)) return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as LockHolder;
  } catch {
    // Written whole by link() below, so an unreadable lock is damage, not a lock being written.
    throw new DataDirInUseError(`the lock file ${file} is unreadable; if no gateway is running on this DATA_DIR, delete it`);
  }
}

function inUse(dir: string, holder: LockHolder, standing: Standing): DataDirInUseError {
  const who = `gateway pid ${holder.gatewayPid} (database process ${holder.pid}) on ${holder.hostname} since ${holder.startedAt}`;
  const advice =
    standing === 'elsewhere'
      ? `cannot tell from here whether it still runs; if it does not, delete ${lockFileIn(dir)}`
      : standing === 'closing'
        ? 'its gateway is gone and it is still closing; try again in a moment'
        : 'one gateway per DATA_DIR: stop that one first or use another DATA_DIR';
  return new DataDirInUseError(`the embedded database in ${dir} is in use by ${who}: ${advice}`);
}

/** Fails at once if a running gateway holds the directory (the database process acquires it). */
export function assertNotHeld(dir: string): void {
  const holder = readHolder(lockFileIn(dir));
  const standing = holder && standingOf(holder);
  if (holder && (standing === 'held' || standing === 'elsewhere')) throw inUse(dir, holder, standing);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock for `holder`, recovering a stale one, and returns its release. The file appears
 * whole and only if absent (link() of a written temp file); a stale lock is removed only by the
 * process holding `<lock>.takeover`, and only if it still names the same dead holder, so two
 * processes recovering it at once cannot both win: the second finds the first's fresh lock.
 */
export async function acquireLock(dir: string, holder: LockHolder, waitForClosingMs = 5000): Promise<() => void> {
  const file = lockFileIn(dir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(holder), { mode: 0o600 });
  try {
    const deadline = Date.now() + waitForClosingMs;
    for (;;) {
      try {
        fs.linkSync(temp, file);
        return () => releaseLock(file, holder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readHolder(file);
      if (!current) continue; // released meanwhile
      const standing = standingOf(current);
      if (standing === 'stale') await removeStale(file, current);
      else if (standing === 'closing' && Date.now() < deadline) await sleep(100);
      else throw inUse(dir, current, standing);
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

async function removeStale(file: string, stale: LockHolder): Promise<void> {
  const takeover = `${file}.takeover`;
  try {
    fs.closeSync(fs.openSync(takeover, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is recovering it (a few file operations), or died doing so long ago.
    const since = fs.statSync(takeover, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    if (Date.now() - since > 10_000) fs.rmSync(takeover, { force: true });
    await sleep(20);
    return;
  }
  try {
    const current = readHolder(file);
    if (current && current.pid === stale.pid && current.startedAt === stale.startedAt) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(takeover, { force: true });
  }
}

function releaseLock(file: string, holder: LockHolder): void {
  try {
    const current = readHolder(file);
    if (current?.pid === holder.pid && current.startedAt === holder.startedAt) fs.rmSync(file, { force: true });
  } catch {
    // A damaged lock is not ours to remove.
  }
}
