import { busyRetry } from "./busyRetry.js";
import type { SqliteContext } from "./sqliteContext.js";
import { useWalGroupSync, type WalGroupSync } from "./walGroupSync.js";

/**
 * What every SQLite-backed store shares: one connection,
 * write (BEGIN IMMEDIATE) and read (one snapshot) transactions that are retried asynchronously
 * while another process holds the lock, and close. Commits are made durable off the event loop
 * (walGroupSync.ts): a write resolves once its commit is on disk, and a read once every commit
 * this process made before it is, so nothing this process reports or acts on can be lost to a
 * power failure, and no fsync holds up the other tasks in the process.
 */
export abstract class SqliteTransactions {
  private readonly commits: WalGroupSync;

  constructor(
    protected readonly ctx: SqliteContext,
    private readonly patienceMs: number,
  ) {
    this.commits = useWalGroupSync(ctx.db);
  }

  /** A write transaction: BEGIN IMMEDIATE, retried asynchronously while another process holds the lock; resolves once it is on disk. */
  protected async write<T>(step: () => T): Promise<T> {
    const result = await busyRetry(() => this.ctx.db.immediate(step), this.patienceMs);
    this.commits.committed();
    await this.commits.durable();
    return result;
  }

  /** A read transaction, so several SELECTs see one snapshot; resolves once what it may have read of this process's commits is on disk. */
  protected async read<T>(step: () => T): Promise<T> {
    const result = await busyRetry(() => this.ctx.db.deferred(step), this.patienceMs);
    await this.commits.durable();
    return result;
  }

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }

  /** Closes the connection once every commit this process made is on disk (closed even when that sync fails, which is then thrown). */
  async close(): Promise<void> {
    try {
      await this.commits.durable();
    } finally {
      if (this.ctx.db.open) this.ctx.db.close();
    }
  }
}
