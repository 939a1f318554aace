import type { JournalHead } from "../../journal/journalTypes.js";
import { JOURNAL_FORMAT } from "../../journal/sealEvent.js";
import type { HeadRow } from "../rows/operationRows.js";
import { toHead } from "../rows/operationRows.js";
import { JournalKeyMismatchError, JournalNotConvertedError } from "../storeErrors.js";
import type { PgTx } from "./pgContext.js";

/** Reads the head row; undefined before the journal was initialized. */
export async function selectHead(tx: PgTx): Promise<JournalHead | undefined> {
  const row = await tx.one<HeadRow>("SELECT * FROM journal_head WHERE id = 1");
  return row === undefined ? undefined : toHead(row);
}

/** Fails closed on a head under another key (the chain would be unverifiable) or in a format this errand does not extend. */
export function requireWritable(tx: PgTx, head: JournalHead): JournalHead {
  if (!tx.ctx.sealer.macEquals(tx.ctx.sealer.keyId, head.keyId)) throw new JournalKeyMismatchError();
  if (head.format !== JOURNAL_FORMAT) throw new JournalNotConvertedError();
  return head;
}

/**
 * Locks and reads the head inside a write transaction, where it must exist. Only what changes the
 * head takes this lock (operation-less events, compaction, checkpoints), always last, after any
 * operation or breaker row it locks, so lock waits never form a cycle. Operation events never do.
 * NO KEY UPDATE: head writers still wait for each other, but a submit reading the head's key id
 * under a key-share lock (usageUnderThisKey) never waits for them.
 */
export async function lockHead(tx: PgTx): Promise<JournalHead> {
  if (tx.head !== undefined) return tx.head;
  const row = await tx.one<HeadRow>("SELECT * FROM journal_head WHERE id = 1 FOR NO KEY UPDATE");
  if (row === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  const head = requireWritable(tx, toHead(row));
  tx.head = head;
  return head;
}

const HEAD_COLUMNS = [
  "format",
  "seq",
  "mac",
  "base_seq",
  "base_mac",
  "stored_bytes",
  "tombstones",
  "checkpoint_operations",
  "checkpoint_digest",
  "checkpoint_mac",
] as const;

function headValues(head: JournalHead): unknown[] {
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

/** The UPDATE and parameters that rewrite the head (journal id and key id never change); parameters start at $first. */
export function headUpdate(head: JournalHead, first: number): { sql: string; values: unknown[] } {
  const p = (i: number) => `$${first + i}`;
  const n = HEAD_COLUMNS.length;
  return {
    sql: `UPDATE journal_head SET ${HEAD_COLUMNS.map((c, i) => `${c} = ${p(i)}`).join(", ")} WHERE id = 1 AND journal_id = ${p(n)} AND key_id = ${p(n + 1)}`,
    values: [...headValues(head), head.journalId, head.keyId],
  };
}

export async function writeHead(tx: PgTx, head: JournalHead): Promise<void> {
  const update = headUpdate(head, 1);
  await tx.run(update.sql, update.values);
  tx.head = head;
}

/** Creates the head row of a new journal. */
export async function insertHead(tx: PgTx, head: JournalHead): Promise<void> {
  await tx.run(
    `INSERT INTO journal_head (id, journal_id, key_id, ${HEAD_COLUMNS.join(", ")}) VALUES (1, $1, $2, ${HEAD_COLUMNS.map((_, i) => `$${i + 3}`).join(", ")})`,
    [head.journalId, head.keyId, ...headValues(head)],
  );
}

/** Bytes counted against the quota: the head's own count and every live operation's (read, not locked). */
export async function journalUsage(tx: PgTx): Promise<number> {
  const row = await tx.one<{ n: number }>(
    "SELECT ((SELECT stored_bytes FROM journal_head WHERE id = 1) + (SELECT coalesce(sum(stored_bytes), 0) FROM operations))::bigint AS n",
  );
  return row?.n ?? 0;
}

/**
 * The usage a submit judges the quota by, read with the head under a key-share lock after checking
 * the head is under this store's key. The creation of an operation is the one write whose event
 * starts a chain of its own (nothing earlier to authenticate), so this is where a process still
 * holding a key rotated away is refused; the lock makes a rotation (which locks the head exclusively)
 * wait for a submit in flight, and a submit wait for a rotation, so none can slip between them.
 */
export async function usageUnderThisKey(tx: PgTx): Promise<number> {
  const row = await tx.one<{ key_id: string; n: number }>(
    "SELECT h.key_id, (h.stored_bytes + (SELECT coalesce(sum(stored_bytes), 0) FROM operations))::bigint AS n FROM journal_head h WHERE h.id = 1 FOR KEY SHARE OF h",
  );
  if (row === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  if (!tx.ctx.sealer.macEquals(tx.ctx.sealer.keyId, row.key_id)) throw new JournalKeyMismatchError();
  return row.n;
}
