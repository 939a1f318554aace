import { randomUUID } from "node:crypto";
import { genesisHead } from "../../journal/sealEvent.js";
import { upgradeLegacyJournal } from "../../journal/upgradeLegacyJournal.js";
import type { EventRow, TombstoneRow } from "../rows/operationRows.js";
import { toEvent, toTombstone } from "../rows/operationRows.js";
import { insertHead, selectHead, writeHead } from "./journalHeadSql.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * Run inside the write transaction that opens a store: creates the head of a new journal, or converts
 * a format-1 journal (one chain of every event) into per-operation chains with this store's key
 * (journal/upgradeLegacyJournal: verified whole first, then re-sealed chain by chain, the conversion
 * recorded as the first checkpoint). A journal under another key, or one that does not verify, is
 * left exactly as it is: nothing is appended to it, and `journal verify` reports why.
 */
export function ensureJournalHead(ctx: SqliteContext): void {
  const head = selectHead(ctx);
  if (head === undefined) {
    insertHead(ctx, genesisHead(ctx.sealer, randomUUID()));
    return;
  }
  if (head.format !== 1 || !ctx.sealer.macEquals(ctx.sealer.keyId, head.keyId)) return;
  const events = (ctx.sql("SELECT * FROM journal_events ORDER BY seq").all() as EventRow[]).map(toEvent);
  const tombstones = (ctx.sql("SELECT * FROM operation_tombstones ORDER BY operation_id").all() as TombstoneRow[]).map(toTombstone);
  const operations = (
    ctx.sql("SELECT operation_id, length(CAST(task_json AS BLOB)) AS task_bytes FROM operations").all() as { operation_id: string; task_bytes: number }[]
  ).map((r) => ({
    operationId: r.operation_id,
    taskBytes: r.task_bytes,
  }));
  const planned = upgradeLegacyJournal({ head, events, tombstones, operations }, ctx.sealer);
  if (!planned.ok) return;
  const { upgrade } = planned;
  const reseal = ctx.sql("UPDATE journal_events SET chain_seq = ?, prev_mac = ?, mac = ? WHERE seq = ?");
  for (const e of upgrade.resealed) reseal.run(e.chainSeq, e.prevMac, e.mac, e.seq);
  const drop = ctx.sql("DELETE FROM journal_events WHERE seq = ?");
  for (const seq of upgrade.dropped) drop.run(seq);
  const chain = ctx.sql("UPDATE operations SET chain_seq = ?, chain_mac = ?, stored_bytes = ? WHERE operation_id = ?");
  for (const op of upgrade.operations) chain.run(op.chain.seq, op.chain.mac, op.storedBytes, op.operationId);
  ctx.sql("DELETE FROM journal_checkpoint").run();
  const entry = ctx.sql("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) VALUES (?, ?, ?)");
  for (const e of upgrade.checkpoint) entry.run(e.operationId, e.chainSeq, e.chainMac);
  writeHead(ctx, upgrade.head);
}
