// PGlite's Node file system writes each page straight to the OS (fs.writeSync) but never syncs it:
// PGlite starts Postgres with fsync off (-F), its Emscripten NODEFS has no fsync operation, and
// Emscripten's fdatasync() is a no-op (PGlite 0.5.16, dist/fs/nodefs.js and release/pglite.js).
// `syncToFs` and `relaxedDurability` do not apply: they drive the IndexedDB and memory-backed file
// systems; for NodeFS `syncToFs` is empty. So a commit is in the kernel's page cache when its
// answer goes out: it survives the death of any process, but not a power loss or kernel crash,
// which with fsync off may also leave the database corrupt.
//
// Here Postgres gets fsync back: fsync on, the WAL synced with fsync() (the call that reaches the
// file system; fdatasync() does not), and NODEFS an fsync that calls fdatasync(2). Postgres then
// syncs the WAL once per commit, before the commit's answer; the gateway commits once per batch
// (the wallet queue's multi-row statements, the request-log flush), so that is one sync per batch.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type Init = Awaited<ReturnType<NodeFS['init']>>;
interface NodeFsInternals {
  stream_ops?: Record<string, unknown>;
  tryFSOperation?: (operation: () => unknown) => unknown;
}
interface EmscriptenStream {
  nfd?: number;
}

class SyncingNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): Promise<Init> {
    const { emscriptenOpts } = await super.init(...args);
    const giveFsync = (mod: { NODEFS?: NodeFsInternals }) => {
      const nodefs = mod.NODEFS;
      // Another PGlite build may lay this out differently: refuse rather than silently not sync.
      if (!nodefs?.stream_ops || !nodefs.tryFSOperation) throw new Error('this PGlite build has no NODEFS stream operations to give an fsync to');
      const attempt = nodefs.tryFSOperation; // maps a Node error to the errno Postgres expects
      nodefs.stream_ops.fsync = (stream: EmscriptenStream) => {
        if (stream.nfd !== undefined) attempt(() => fs.fdatasyncSync(stream.nfd!));
        return 0;
      };
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), giveFsync as never] } };
  }
}

/** PGlite options for a data directory on disk whose commits are synced before they are answered. */
export function durableOptions(dir: string): PGliteOptions {
  return {
    fs: new SyncingNodeFS(dir),
    startParams: [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'],
  };
}

/**
 * Syncs every file and directory under `dir`. PGlite creates a database by copying the files
 * initdb made into the directory, unsynced; Postgres later syncs only the files it writes.
 */
export function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) syncTree(path.join(dir, entry.name));
    else if (entry.isFile()) syncPath(path.join(dir, entry.name));
  }
  syncPath(dir);
}

function syncPath(target: string): void {
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
