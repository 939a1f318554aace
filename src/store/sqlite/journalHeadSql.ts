import type { JournalHead } from "../../journal/journalTypes.js";
import type { HeadRow } from "../rows/operationRows.js";
import { toHead } from "../rows/operationRows.js";
import type { SqliteContext } from "./sqliteContext.js";

/** Reads the head checkpoint row; undefined before the journal was initialized. */
export function selectHead(ctx: SqliteContext): JournalHead | undefined {
  const row = ctx.sql("SELECT * FROM journal_head WHERE id = 1").get() as HeadRow | undefined;
  return row === undefined ? undefined : toHead(row);
}

/** Reads the head inside a write transaction, where it must exist. */
export function requireHead(ctx: SqliteContext): JournalHead {
  const head = selectHead(ctx);
  if (head === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  return head;
}

/** Creates the head checkpoint row of a new journal. */
export function insertHead(ctx: SqliteContext, head: JournalHead): void {
  ctx
    .sql(
      `INSERT INTO journal_head (id, journal_id, key_id, seq, mac, base_seq, base_mac, stored_bytes, tombstones, checkpoint_mac)
       VALUES (1, @journalId, @keyId, @seq, @mac, @baseSeq, @baseMac, @storedBytes, @tombstones, @checkpointMac)`,
    )
    .run(head);
}

/** Rewrites the head checkpoint row (the journal id and key id never change). */
export function writeHead(ctx: SqliteContext, head: JournalHead): void {
  ctx
    .sql(
      `UPDATE journal_head SET seq = @seq, mac = @mac, base_seq = @baseSeq, base_mac = @baseMac, stored_bytes = @storedBytes,
         tombstones = @tombstones, checkpoint_mac = @checkpointMac
       WHERE id = 1 AND journal_id = @journalId AND key_id = @keyId`,
    )
    .run(head);
}
