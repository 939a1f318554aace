import type { JournalHead } from "../../journal/journalTypes.js";
import type { HeadRow } from "../rows/operationRows.js";
import { toHead } from "../rows/operationRows.js";
import { JournalKeyMismatchError } from "../storeErrors.js";
import type { PgTx } from "./pgContext.js";

/** Reads the head checkpoint row; undefined before the journal was initialized. */
export async function selectHead(tx: PgTx): Promise<JournalHead | undefined> {
  const row = await tx.one<HeadRow>("SELECT * FROM journal_head WHERE id = 1");
  return row === undefined ? undefined : toHead(row);
}

/**
 * Locks and reads the head inside a write transaction, where it must exist. Every writer of the
 * journal takes this lock last (after any operation or breaker row it locks), so the chain grows
 * one event at a time in commit order and lock waits never form a cycle.
 */
export async function lockHead(tx: PgTx): Promise<JournalHead> {
  if (tx.head !== undefined) return tx.head;
  const row = await tx.one<HeadRow>("SELECT * FROM journal_head WHERE id = 1 FOR UPDATE");
  if (row === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  const head = toHead(row);
  // Fail closed: a journal written under another key is never extended (the chain would be unverifiable).
  if (!tx.ctx.sealer.macEquals(tx.ctx.sealer.keyId, head.keyId)) throw new JournalKeyMismatchError();
  tx.head = head;
  return head;
}

/** The SET list and parameters that rewrite the head (journal id and key id never change); parameters start at $first. */
export function headUpdate(head: JournalHead, first: number): { sql: string; values: unknown[] } {
  const p = (i: number) => `$${first + i}`;
  return {
    sql: `UPDATE journal_head SET seq = ${p(0)}, mac = ${p(1)}, base_seq = ${p(2)}, base_mac = ${p(3)}, stored_bytes = ${p(4)}, tombstones = ${p(5)}, checkpoint_mac = ${p(6)}
          WHERE id = 1 AND journal_id = ${p(7)} AND key_id = ${p(8)}`,
    values: [head.seq, head.mac, head.baseSeq, head.baseMac, head.storedBytes, head.tombstones, head.checkpointMac, head.journalId, head.keyId],
  };
}

export async function writeHead(tx: PgTx, head: JournalHead): Promise<void> {
  const update = headUpdate(head, 1);
  await tx.run(update.sql, update.values);
  tx.head = head;
}
