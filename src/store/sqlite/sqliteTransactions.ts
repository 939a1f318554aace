import { busyRetry } from "./busyRetry.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * What every SQLite-backed store shares: one connection,
 * write (BEGIN IMMEDIATE) and read (one snapshot) transactions that are retried asynchronously
 * while another process holds the lock, and close.
 */
export abstract class SqliteTransactions {
  constructor(
    protected readonly ctx: SqliteContext,
    private readonly patienceMs: number,
  ) {}

  /** A write transaction: BEGIN IMMEDIATE, retried asynchronously while another process holds the lock. */
  protected write<T>(step: () => T): Promise<T> {
    return busyRetry(() => this.ctx.db.immediate(step), this.patienceMs);
  }

  /** A read transaction, so several SELECTs see one snapshot. */
  protected read<T>(step: () => T): Promise<T> {
    return busyRetry(() => this.ctx.db.deferred(step), this.patienceMs);
  }

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }

  close(): Promise<void> {
    if (this.ctx.db.open) this.ctx.db.close();
    return Promise.resolve();
  }
}
