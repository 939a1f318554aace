import type { JournalHead } from "../../journal/journalTypes.js";
import type { HeadRow } from "./rows.js";
import { toHead } from "./rows.js";
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

/** Writes the head checkpoint row (insert on first use, replace afterwards). */
export function writeHead(ctx: SqliteContext, head: JournalHead): void {
  ctx
    .sql(
      `INSERT INTO journal_head (id, journal_id, key_id, seq, mac, base_seq, base_mac, stored_bytes, tombstones, checkpoint_mac)
       VALUES (1, @journalId, @keyId, @seq, @mac, @baseSeq, @baseMac, @storedBytes, @tombstones, @checkpointMac)
       ON CONFLICT (id) DO UPDATE SET journal_id = excluded.journal_id, key_id = excluded.key_id, seq = excluded.seq, mac = excluded.mac,
         base_seq = excluded.base_seq, base_mac = excluded.base_mac, stored_bytes = excluded.stored_bytes,
         tombstones = excluded.tombstones, checkpoint_mac = excluded.checkpoint_mac`,
    )
    .run(head);
}
