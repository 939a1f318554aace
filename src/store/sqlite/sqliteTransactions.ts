import type Database from "better-sqlite3";
import { busyRetry } from "./busyRetry.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * What every SQLite-backed store shares: one connection, one transaction wrapper created once,
 * write (BEGIN IMMEDIATE) and read (one snapshot) transactions that are retried asynchronously
 * while another process holds the lock, and close.
 */
export abstract class SqliteTransactions {
  private readonly transaction: Database.Transaction<(step: () => unknown) => unknown>;

  constructor(
    protected readonly ctx: SqliteContext,
    private readonly patienceMs: number,
  ) {
    this.transaction = ctx.db.transaction((step: () => unknown) => step());
  }

  /** A write transaction: BEGIN IMMEDIATE, retried asynchronously while another process holds the lock. */
  protected write<T>(step: () => T): Promise<T> {
    return busyRetry(() => this.transaction.immediate(step) as T, this.patienceMs);
  }

  /** A read transaction, so several SELECTs see one snapshot. */
  protected read<T>(step: () => T): Promise<T> {
    return busyRetry(() => this.transaction.deferred(step) as T, this.patienceMs);
  }

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }

  close(): Promise<void> {
    if (this.ctx.db.open) this.ctx.db.close();
    return Promise.resolve();
  }
}
