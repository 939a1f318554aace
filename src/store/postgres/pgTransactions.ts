import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { PgContext, PgTx } from "./pgContext.js";
import { createPgTx } from "./pgContext.js";
import { translateConnectionError } from "./postgresConnection.js";
import { StoreBusyError } from "../storeErrors.js";

/** Serialization failures and deadlocks: PostgreSQL rolled the transaction back and it may simply run again. */
const RETRYABLE = new Set(["40001", "40P01"]);
const NOW_MS = "SELECT (extract(epoch FROM now()) * 1000)::bigint AS now";

function sqlState(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * What every PostgreSQL-backed store shares: one pool, a readiness promise (the schema is migrated
 * and the journal head exists before the first statement runs), write transactions (READ COMMITTED
 * with explicit row locks; the journal head row is always locked last, so lock order is one
 * direction), read transactions (REPEATABLE READ, one snapshot), and close.
 *
 * Opening is synchronous so every caller opens a PostgreSQL store exactly as it opens SQLite; the
 * connection and migration happen on first use, and their failure (no server, wrong password, a
 * newer schema) is reported by that first call.
 */
export abstract class PgTransactions {
  constructor(
    protected readonly pool: pg.Pool,
    protected readonly ctx: PgContext,
    protected readonly ready: Promise<number>,
    private readonly connectionString: string,
    private readonly patienceMs: number,
  ) {
    // Reported by the first call that awaits it; never an unhandled rejection in between.
    ready.catch(() => undefined);
  }

  protected write<T>(step: (tx: PgTx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN", step);
  }

  protected read<T>(step: (tx: PgTx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", step);
  }

  /**
   * One read statement on its own (PostgreSQL runs it on one snapshot anyway): no BEGIN and COMMIT
   * round trips for the reads a runner makes on every attempt (breakers). The step has no `now`.
   */
  protected async single<T>(step: (tx: PgTx) => Promise<T>): Promise<T> {
    await this.ready;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw translateConnectionError(error, this.connectionString);
    }
    try {
      return await step(createPgTx(client, this.ctx, undefined));
    } catch (error) {
      throw translateConnectionError(error, this.connectionString);
    } finally {
      client.release();
    }
  }

  private async transaction<T>(begin: string, step: (tx: PgTx) => Promise<T>): Promise<T> {
    await this.ready;
    const started = Date.now();
    for (let round = 0; ; round += 1) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw translateConnectionError(error, this.connectionString);
      }
      let broken = false;
      try {
        const now = await beginTransaction(client, begin, this.ctx.clock);
        const result = await step(createPgTx(client, this.ctx, now));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true;
        }
        const state = sqlState(error);
        if (state === undefined || !RETRYABLE.has(state)) throw translateConnectionError(error, this.connectionString);
        if (Date.now() - started > this.patienceMs)
          throw new StoreBusyError(
            `PostgreSQL kept aborting this transaction (${state}) for ${Date.now() - started} ms; other errand processes are contending for the same rows.`,
          );
        await sleep(Math.min(100, 2 * 2 ** Math.min(round, 6)) * (0.5 + Math.random()));
      } finally {
        client.release(broken);
      }
    }
  }

  async now(): Promise<number> {
    await this.ready;
    if (this.ctx.clock !== undefined) return this.ctx.clock();
    try {
      const result = await this.pool.query<{ now: number }>(NOW_MS);
      return Number(result.rows[0]?.now);
    } catch (error) {
      throw translateConnectionError(error, this.connectionString);
    }
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }
}

/** BEGIN, and the transaction's time in the same round trip (simple protocol, two statements). */
async function beginTransaction(client: pg.PoolClient, begin: string, clock: (() => number) | undefined): Promise<number> {
  if (clock !== undefined) {
    await client.query(begin);
    return clock();
  }
  const results = (await client.query(`${begin}; ${NOW_MS}`)) as unknown as pg.QueryResult<{ now: number }>[];
  const now = results[1]?.rows[0]?.now;
  if (typeof now !== "number") throw new Error("PostgreSQL did not return now() with BEGIN");
  return now;
}
