import { randomUUID } from "node:crypto";
import { genesisHead } from "../../journal/sealEvent.js";
import { upgradeLegacyJournal } from "../../journal/upgradeLegacyJournal.js";
import type { EventRow, TombstoneRow } from "../rows/operationRows.js";
import { toEvent, toTombstone } from "../rows/operationRows.js";
import { insertHead, selectHead, writeHead } from "./journalHeadPg.js";
import type { PgTx } from "./pgContext.js";

/**
 * Run inside the migrating transaction (under its advisory lock): creates the head of a new journal,
 * or converts a format-1 journal (one chain of every event) into per-operation chains with this
 * store's key (journal/upgradeLegacyJournal: verified whole first, then re-sealed chain by chain, the
 * conversion recorded as the first checkpoint). A journal under another key, or one that does not
 * verify, is left exactly as it is: nothing is appended to it, and `journal verify` reports why.
 */
export async function ensureJournalHeadPg(tx: PgTx): Promise<void> {
  const head = await selectHead(tx);
  if (head === undefined) {
    await insertHead(tx, genesisHead(tx.ctx.sealer, randomUUID()));
    return;
  }
  if (head.format !== 1 || !tx.ctx.sealer.macEquals(tx.ctx.sealer.keyId, head.keyId)) return;
  const events = (await tx.rows<EventRow>("SELECT * FROM journal_events ORDER BY seq")).map(toEvent);
  const tombstones = (await tx.rows<TombstoneRow>("SELECT * FROM operation_tombstones ORDER BY operation_id")).map(toTombstone);
  const operations = (
    await tx.rows<{ operation_id: string; task_bytes: number }>("SELECT operation_id, octet_length(task_json)::bigint AS task_bytes FROM operations")
  ).map((r) => ({
    operationId: r.operation_id,
    taskBytes: r.task_bytes,
  }));
  const planned = upgradeLegacyJournal({ head, events, tombstones, operations }, tx.ctx.sealer);
  if (!planned.ok) return;
  const { upgrade } = planned;
  await tx.run(
    `UPDATE journal_events e SET chain_seq = u.chain_seq, prev_mac = u.prev_mac, mac = u.mac
     FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS u(seq, chain_seq, prev_mac, mac) WHERE e.seq = u.seq`,
    [upgrade.resealed.map((e) => e.seq), upgrade.resealed.map((e) => e.chainSeq), upgrade.resealed.map((e) => e.prevMac), upgrade.resealed.map((e) => e.mac)],
  );
  await tx.run("DELETE FROM journal_events WHERE seq = ANY($1::bigint[])", [upgrade.dropped]);
  await tx.run(
    `UPDATE operations o SET chain_seq = u.chain_seq, chain_mac = u.chain_mac, stored_bytes = u.stored_bytes
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS u(operation_id, chain_seq, chain_mac, stored_bytes) WHERE o.operation_id = u.operation_id`,
    [
      upgrade.operations.map((o) => o.operationId),
      upgrade.operations.map((o) => o.chain.seq),
      upgrade.operations.map((o) => o.chain.mac),
      upgrade.operations.map((o) => o.storedBytes),
    ],
  );
  await tx.run("DELETE FROM journal_checkpoint");
  await tx.run("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])", [
    upgrade.checkpoint.map((e) => e.operationId),
    upgrade.checkpoint.map((e) => e.chainSeq),
    upgrade.checkpoint.map((e) => e.chainMac),
  ]);
  await writeHead(tx, upgrade.head);
}
