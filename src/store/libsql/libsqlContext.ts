import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { IntegrityRefusal, UnauthenticRow } from "../Store.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";

/** What every libSQL query function receives: the client, the journal sealer and the clock. */
export interface LibsqlContext {
  client: LibsqlClientLike;
  sealer: JournalSealer;
  /** The store's clock (the process clock unless a test injects one). */
  clock: () => number;
  /** Operations refused since the store was last asked (Store.takeIntegrityRefusals), by id. */
  refusals: Map<string, IntegrityRefusal>;
  /** Rows that grant authority refused for a failing MAC since last asked, by table and id. */
  rowRefusals: Map<string, UnauthenticRow>;
  /** How long a store operation keeps retrying while the database is locked or contended before it reports store_busy (ms). */
  busyPatienceMs: number;
  /** The journal's id, read from its head once (it never changes; journalIdOf.ts). */
  journalId?: string;
}

export function createLibsqlContext(client: LibsqlClientLike, sealer: JournalSealer, clock: () => number, busyPatienceMs: number): LibsqlContext {
  return { client, sealer, clock, refusals: new Map(), rowRefusals: new Map(), busyPatienceMs };
}
