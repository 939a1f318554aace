import { open } from "node:fs/promises";
import { resolve } from "node:path";
import type { SqliteDatabase } from "./sqliteBinding.js";

/**
 * Commits that are on disk before anyone in this process learns of them, without an fsync on the
 * event loop. With `synchronous=FULL` in WAL mode SQLite fsyncs the WAL inside every COMMIT, on
 * the calling thread: in errand serve that froze every task's browser work for each commit of any
 * task. With `synchronous=NORMAL` a COMMIT only writes the WAL (SQLite still syncs the WAL header
 * when the WAL starts over, the WAL before a checkpoint and the database after it, so the file is
 * never corrupted); what NORMAL gives up, a commit surviving power loss, is given back here: the
 * WAL is fsynced off the event loop (libuv's thread pool) and a write or read resolves only once
 * every commit this process made before it returned is on disk. Commits waiting together share
 * one fsync. The WAL keeps commits in order and recovery replays its longest valid prefix, so an
 * fsync that covers a commit covers everything committed before it too.
 *
 * What differs from FULL: another process reading the same file may see a commit during the few
 * milliseconds before its fsync ends (with FULL it sees it only after); errand in this process
 * never does. Connections not in WAL mode (a file system without shared memory) keep FULL.
 */
export interface WalGroupSync {
  /** Call right after a transaction on a connection to this file committed changes. */
  committed(): void;
  /** Resolves once every change this process committed to the file so far is on disk. */
  durable(): Promise<void>;
}

/**
 * Counts commits and the fsyncs that covered them: `durable()` waits for the fsync running now when
 * it started after the last commit, else starts (or waits for) the next, so commits that wait
 * together share one `sync`. A failed sync rejects everyone waiting on it; the next call tries again.
 */
export class GroupSync implements WalGroupSync {
  private committedCount = 0;
  private syncedCount = 0;
  private running: Promise<void> | undefined;

  constructor(private readonly sync: () => Promise<void>) {}

  committed(): void {
    this.committedCount += 1;
  }

  async durable(): Promise<void> {
    const target = this.committedCount;
    while (this.syncedCount < target) {
      if (this.running === undefined) {
        // Every commit counted by now has finished writing the WAL, so this fsync covers it.
        const covers = this.committedCount;
        this.running = this.sync()
          .then(() => {
            this.syncedCount = Math.max(this.syncedCount, covers);
          })
          .finally(() => {
            this.running = undefined;
          });
      }
      await this.running;
    }
  }
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncWal(databasePath: string): Promise<void> {
  try {
    await syncFile(`${databasePath}-wal`);
  } catch (error) {
    // SQLite removes the WAL only after checkpointing all of it into the database file.
    if (error instanceof Error && "code" in error && error.code === "ENOENT") await syncFile(databasePath);
    else throw error;
  }
}

const ALREADY_DURABLE: WalGroupSync = { committed: () => undefined, durable: () => Promise.resolve() };

/** One per database file in this process, so every connection's commits share its fsyncs. */
const byFile = new Map<string, GroupSync>();

/**
 * Switches `db` (opened by openDatabaseFile, migrated) to commits without an fsync of their own and
 * returns the file's group sync. A connection not in WAL mode keeps synchronous=FULL and gets a
 * sync that has nothing to do.
 */
export function useWalGroupSync(db: SqliteDatabase): WalGroupSync {
  if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") return ALREADY_DURABLE;
  db.pragma("synchronous = NORMAL");
  const key = resolve(db.path);
  let sync = byFile.get(key);
  if (sync === undefined) {
    sync = new GroupSync(() => syncWal(key));
    byFile.set(key, sync);
  }
  return sync;
}
