import { createHash } from "node:crypto";
import type pg from "pg";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { JournalHead } from "../../journal/journalTypes.js";
import type { IntegrityRefusal, UnauthenticRow } from "../Store.js";

/** What every PostgreSQL store shares across its transactions: the sealer, the optional test clock, refusals, the journal id. */
export interface PgContext {
  sealer: JournalSealer;
  /** Tests inject a clock to move time without sleeping; otherwise the database's now() is the clock. */
  clock: (() => number) | undefined;
  /** Operations refused since the store was last asked (Store.takeIntegrityRefusals), by id. */
  refusals: Map<string, IntegrityRefusal>;
  /** Rows that grant authority refused for a failing MAC since last asked (AccessStore.takeRowRefusals), by table and id. */
  rowRefusals: Map<string, UnauthenticRow>;
  /** The journal's id, read from its head once (it never changes). */
  journalId?: string;
}

/**
 * One transaction on one connection. `now` is the store's time for the whole transaction: the
 * database's now() read with BEGIN (every runner on every machine judges leases by that one
 * clock), or the injected test clock.
 */
export interface PgTx {
  readonly ctx: PgContext;
  readonly now: number;
  /** The journal head as this transaction locked and last wrote it (journalHeadPg.lockHead), so it is locked and read once per transaction. */
  head: JournalHead | undefined;
  rows<T>(text: string, values?: readonly unknown[]): Promise<T[]>;
  one<T>(text: string, values?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement; returns the number of rows it changed. */
  run(text: string, values?: readonly unknown[]): Promise<number>;
}

const names = new Map<string, string>();

/** Statements are prepared once per connection under a name derived from their text. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `errand_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** A transaction's statements; `now` undefined for a lone statement outside a transaction (reading it then is a bug, and throws). */
export function createPgTx(client: pg.PoolClient, ctx: PgContext, now: number | undefined): PgTx {
  const query = async <T>(text: string, values: readonly unknown[] = []) => {
    const result = await client.query({ name: statementName(text), text, values: values as unknown[] });
    return { rows: result.rows as T[], count: result.rowCount ?? 0 };
  };
  return {
    ctx,
    get now(): number {
      if (now === undefined) throw new Error("a statement outside a transaction has no transaction time");
      return now;
    },
    head: undefined,
    rows: async (text, values) => (await query(text, values)).rows,
    one: async (text, values) => (await query(text, values)).rows[0],
    run: async (text, values) => (await query(text, values)).count,
  } as PgTx;
}
