import type { JournalHead } from "../../journal/journalTypes.js";
import { JOURNAL_FORMAT } from "../../journal/sealEvent.js";
import type { HeadRow } from "../rows/operationRows.js";
import { toHead } from "../rows/operationRows.js";
import { JournalKeyMismatchError, JournalNotConvertedError } from "../storeErrors.js";
import { guard } from "./batchGuard.js";
import type { LibsqlContext } from "./libsqlContext.js";
import type { LibsqlResult, LibsqlStatement, LibsqlValue } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";
import { firstRowIn } from "./libsqlRows.js";

/** The statement that reads the head row (in a read batch with whatever else a decision needs). */
export const SELECT_HEAD = statement("SELECT * FROM journal_head WHERE id = 1");

/** The head a SELECT_HEAD result holds; undefined before the journal was initialized. */
export function headIn(result: LibsqlResult | undefined): JournalHead | undefined {
  const row = firstRowIn<HeadRow>(result);
  return row === undefined ? undefined : toHead(row);
}

export async function selectHead(ctx: LibsqlContext): Promise<JournalHead | undefined> {
  return headIn(await ctx.client.execute(SELECT_HEAD));
}

/**
 * The head a write is decided from: it must exist, be written under this store's key (fail closed: a
 * journal under another key is never extended) and be in the format this errand writes.
 */
export function requireHead(ctx: LibsqlContext, head: JournalHead | undefined): JournalHead {
  if (head === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  if (!ctx.sealer.macEquals(ctx.sealer.keyId, head.keyId)) throw new JournalKeyMismatchError();
  if (head.format !== JOURNAL_FORMAT) throw new JournalNotConvertedError();
  return head;
}

/** A guard that holds while the head is the one read: its place and its signature over every field. */
export function headUnchanged(head: JournalHead): LibsqlStatement {
  return guard("EXISTS (SELECT 1 FROM journal_head WHERE id = 1 AND seq = ? AND checkpoint_mac = ?)", head.seq, head.checkpointMac);
}

/** The head's columns after its identity (journal id, key id), in the order both statements below name them. */
function headState(head: JournalHead): LibsqlValue[] {
  return [
    head.format,
    head.seq,
    head.mac,
    head.baseSeq,
    head.baseMac,
    head.storedBytes,
    head.tombstones,
    head.checkpointOperations,
    head.checkpointDigest,
    head.checkpointMac,
  ];
}

/** Rewrites the head row (the journal id and key id never change). */
export function writeHead(head: JournalHead): LibsqlStatement {
  return statement(
    `UPDATE journal_head SET format = ?, seq = ?, mac = ?, base_seq = ?, base_mac = ?, stored_bytes = ?, tombstones = ?,
       checkpoint_operations = ?, checkpoint_digest = ?, checkpoint_mac = ?
     WHERE id = 1 AND journal_id = ? AND key_id = ?`,
    ...headState(head),
    head.journalId,
    head.keyId,
  );
}

/** Creates the head row of a new journal, unless another process created one first (its head stands). */
export function insertHeadIfAbsent(head: JournalHead): LibsqlStatement {
  return statement(
    `INSERT OR IGNORE INTO journal_head (id, journal_id, key_id, format, seq, mac, base_seq, base_mac, stored_bytes, tombstones, checkpoint_operations, checkpoint_digest, checkpoint_mac)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    head.journalId,
    head.keyId,
    ...headState(head),
  );
}
