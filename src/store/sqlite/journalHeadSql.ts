import type { JournalHead } from "../../journal/journalTypes.js";
import { JOURNAL_FORMAT } from "../../journal/sealEvent.js";
import type { HeadRow } from "../rows/operationRows.js";
import { toHead } from "../rows/operationRows.js";
import { JournalKeyMismatchError, JournalNotConvertedError } from "../storeErrors.js";
import type { SqliteContext } from "./sqliteContext.js";

/** Reads the head row; undefined before the journal was initialized. */
export function selectHead(ctx: SqliteContext): JournalHead | undefined {
  const row = ctx.sql("SELECT * FROM journal_head WHERE id = 1").get() as HeadRow | undefined;
  return row === undefined ? undefined : toHead(row);
}

/**
 * Reads the head inside a write transaction, where it must exist, be written under this store's key
 * (fail closed: a journal under another key is never extended) and be in the format this errand writes.
 */
export function requireHead(ctx: SqliteContext): JournalHead {
  const head = selectHead(ctx);
  if (head === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  if (!ctx.sealer.macEquals(ctx.sealer.keyId, head.keyId)) throw new JournalKeyMismatchError();
  if (head.format !== JOURNAL_FORMAT) throw new JournalNotConvertedError();
  return head;
}

/** Creates the head row of a new journal. */
export function insertHead(ctx: SqliteContext, head: JournalHead): void {
  ctx
    .sql(
      `INSERT INTO journal_head (id, journal_id, key_id, format, seq, mac, base_seq, base_mac, stored_bytes, tombstones, checkpoint_operations, checkpoint_digest, checkpoint_mac)
       VALUES (1, @journalId, @keyId, @format, @seq, @mac, @baseSeq, @baseMac, @storedBytes, @tombstones, @checkpointOperations, @checkpointDigest, @checkpointMac)`,
    )
    .run(head);
}

/** Rewrites the head row (the journal id and key id never change). */
export function writeHead(ctx: SqliteContext, head: JournalHead): void {
  ctx
    .sql(
      `UPDATE journal_head SET format = @format, seq = @seq, mac = @mac, base_seq = @baseSeq, base_mac = @baseMac, stored_bytes = @storedBytes,
         tombstones = @tombstones, checkpoint_operations = @checkpointOperations, checkpoint_digest = @checkpointDigest, checkpoint_mac = @checkpointMac
       WHERE id = 1 AND journal_id = @journalId AND key_id = @keyId`,
    )
    .run(head);
}

/** Bytes counted against the quota: the head's own count and every live operation's. */
export function journalUsage(ctx: SqliteContext, head: JournalHead): number {
  const ops = ctx.sql("SELECT coalesce(sum(stored_bytes), 0) AS n FROM operations").get() as { n: number };
  return head.storedBytes + ops.n;
}
