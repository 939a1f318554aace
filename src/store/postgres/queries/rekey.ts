import type { JournalHead } from "../../../journal/journalTypes.js";
import type { ArtifactMediaType } from "../../../receipt/artifactTypes.js";
import type { RekeyTransaction } from "../../rotateKeyInTransaction.js";
import type { SecretSourceKind } from "../../SecretStore.js";
import type { OperationPhase } from "../../Store.js";
import { AUTHENTIC_TABLES, rowMacOf, unauthenticIn } from "../../rows/authenticRows.js";
import { INSERT_EVENT, eventValues } from "../appendJournalEvent.js";
import { allRows } from "../authenticTablePg.js";
import { selectHead } from "../journalHeadPg.js";
import type { PgTx } from "../pgContext.js";
import { dropExpiredArtifacts } from "./artifacts.js";
import { readCheckpoint } from "./checkpoint.js";
import { dropExpiredResults } from "./heldResults.js";
import { countOperationEvents, readJournalChain, readJournalEvents, readTombstones } from "./journalRead.js";
import { readOperationEvents, readOperationStates } from "./readOperation.js";

/**
 * Every table a rotation reads or rewrites, locked against writers (readers go on) for the whole
 * transaction, the journal head last and exclusively (a submit reads it under a key-share lock:
 * journalHeadPg.usageUnderThisKey). A runner or server still holding the old key waits, then fails
 * closed: on the head's key id, or on rows it can no longer authenticate.
 */
export const REKEY_LOCKS = [
  `LOCK TABLE operations, journal_events, journal_checkpoint, operation_tombstones, secrets, sites, site_grants, owner_files,
     held_results, artifacts, owner_secret, api_tokens, oauth_clients, oauth_codes, oauth_families, oauth_tokens IN SHARE ROW EXCLUSIVE MODE`,
  "LOCK TABLE journal_head IN EXCLUSIVE MODE",
] as const;

/** Events whose MACs one statement rewrites. */
const BATCH = 500;

/** A key rotation's statements on PostgreSQL (store/rotateKeyInTransaction), inside the transaction `tx`, after REKEY_LOCKS. */
export function rekeyPg(tx: PgTx): RekeyTransaction {
  return {
    now: tx.now,
    // JournalSource
    readJournalHead: () => selectHead(tx),
    readJournalEvents: (afterSeq, limit) => readJournalEvents(tx, afterSeq, limit),
    readJournalChain: (afterChainSeq, limit) => readJournalChain(tx, afterChainSeq, limit),
    readTombstones: (afterOperationId, limit) => readTombstones(tx, afterOperationId, limit),
    readOperationStates: (afterOperationId, limit) => readOperationStates(tx, afterOperationId, limit),
    readOperationEvents: (operationId) => readOperationEvents(tx, operationId),
    countOperationEvents: () => countOperationEvents(tx),
    readCheckpoint: (afterOperationId, limit) => readCheckpoint(tx, afterOperationId, limit),

    // JournalResigning
    async writeEventMacs(updates) {
      for (let i = 0; i < updates.length; i += BATCH) {
        const batch = updates.slice(i, i + BATCH);
        await tx.run(
          "UPDATE journal_events e SET prev_mac = u.prev_mac, mac = u.mac FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(seq, prev_mac, mac) WHERE e.seq = u.seq",
          [batch.map((u) => u.seq), batch.map((u) => u.prevMac), batch.map((u) => u.mac)],
        );
      }
    },
    writeOperationChainMac: async (operationId, chainMac) =>
      void (await tx.run("UPDATE operations SET chain_mac = $1 WHERE operation_id = $2", [chainMac, operationId])),
    writeTombstoneMac: async (operationId, mac) => void (await tx.run("UPDATE operation_tombstones SET mac = $1 WHERE operation_id = $2", [mac, operationId])),
    async replaceCheckpoint(entries) {
      await tx.run("DELETE FROM journal_checkpoint");
      await tx.run("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])", [
        entries.map((e) => e.operationId),
        entries.map((e) => e.chainSeq),
        entries.map((e) => e.chainMac),
      ]);
    },
    replaceHead: (head) => replaceHead(tx, head),
    async insertJournalEvent(event, head) {
      await tx.run(INSERT_EVENT, eventValues(event));
      await replaceHead(tx, head);
    },

    // RekeyTransaction
    unfinishedOperations: async (limit) =>
      (
        await tx.rows<{ operation_id: string; phase: OperationPhase }>(
          "SELECT operation_id, phase FROM operations WHERE phase IN ('awaiting_approval', 'queued', 'running') ORDER BY operation_id LIMIT $1",
          [limit],
        )
      ).map((r) => ({
        operationId: r.operation_id,
        phase: r.phase,
      })),
    async unauthenticRows(sealer) {
      const refused = [];
      for (const table of AUTHENTIC_TABLES) refused.push(...unauthenticIn(sealer, table, await allRows(tx, table)));
      return refused;
    },
    async dropStaleEvidence() {
      const heldResults =
        (await dropExpiredResults(tx)) +
        (await tx.run("DELETE FROM held_results h WHERE NOT EXISTS (SELECT 1 FROM operations o WHERE o.operation_id = h.operation_id)"));
      return { heldResults, artifacts: await dropExpiredArtifacts(tx) };
    },
    sealedSecrets: async () =>
      (
        await tx.rows<{ name: string; sites_json: string; source_kind: SecretSourceKind; sealed: string }>(
          "SELECT name, sites_json, source_kind, sealed FROM secrets ORDER BY name",
        )
      ).map((r) => ({
        name: r.name,
        sites: JSON.parse(r.sites_json) as string[],
        sourceKind: r.source_kind,
        sealed: r.sealed,
      })),
    writeSecretSealed: async (name, sealed) => void (await tx.run("UPDATE secrets SET sealed = $1 WHERE name = $2", [sealed, name])),
    sealedSessions: async () =>
      (
        await tx.rows<{ name: string; origins_json: string; defined_ms: number; sealed_session: string }>(
          "SELECT name, origins_json, defined_ms, sealed_session FROM sites WHERE sealed_session IS NOT NULL ORDER BY name",
        )
      ).map((r) => ({
        name: r.name,
        origins: JSON.parse(r.origins_json) as string[],
        definedMs: r.defined_ms,
        sealed: r.sealed_session,
      })),
    writeSessionSealed: async (name, sealed) => void (await tx.run("UPDATE sites SET sealed_session = $1 WHERE name = $2", [sealed, name])),
    ownerFileNames: async () => (await tx.rows<{ name: string }>("SELECT name FROM owner_files ORDER BY name")).map((r) => r.name),
    ownerFile: (name) =>
      tx.one<{ name: string; bytes: number; sha256: string; sealed: string }>("SELECT name, bytes, sha256, sealed FROM owner_files WHERE name = $1", [name]),
    writeOwnerFileSealed: async (name, sealed) => void (await tx.run("UPDATE owner_files SET sealed = $1 WHERE name = $2", [sealed, name])),
    heldResults: async () =>
      (
        await tx.rows<{ operation_id: string; attempt: number; sealed: string; request_digest: string }>(
          "SELECT h.operation_id, h.attempt, h.sealed, o.request_digest FROM held_results h JOIN operations o ON o.operation_id = h.operation_id ORDER BY h.operation_id",
        )
      ).map((r) => ({ operationId: r.operation_id, attempt: r.attempt, sealed: r.sealed, requestDigest: r.request_digest })),
    writeHeldResultSealed: async (operationId, sealed) =>
      void (await tx.run("UPDATE held_results SET sealed = $1 WHERE operation_id = $2", [sealed, operationId])),
    deleteHeldResult: async (operationId) => void (await tx.run("DELETE FROM held_results WHERE operation_id = $1", [operationId])),
    artifactKeys: async () =>
      (await tx.rows<{ operation_id: string; idx: number }>("SELECT operation_id, idx FROM artifacts ORDER BY operation_id, idx")).map((r) => ({
        operationId: r.operation_id,
        index: r.idx,
      })),
    async artifact(operationId, index) {
      const row = await tx.one<{ attempt: number; media_type: ArtifactMediaType; sha256: string; sealed: string; request_digest: string }>(
        "SELECT a.attempt, a.media_type, a.sha256, a.sealed, o.request_digest FROM artifacts a JOIN operations o ON o.operation_id = a.operation_id WHERE a.operation_id = $1 AND a.idx = $2",
        [operationId, index],
      );
      return row === undefined
        ? undefined
        : { operationId, index, attempt: row.attempt, mediaType: row.media_type, sha256: row.sha256, sealed: row.sealed, requestDigest: row.request_digest };
    },
    writeArtifactSealed: async (operationId, index, sealed) =>
      void (await tx.run("UPDATE artifacts SET sealed = $1 WHERE operation_id = $2 AND idx = $3", [sealed, operationId, index])),
    deleteArtifact: async (operationId, index) => void (await tx.run("DELETE FROM artifacts WHERE operation_id = $1 AND idx = $2", [operationId, index])),
    async endHttpCredentials() {
      const apiTokens = await tx.run("UPDATE api_tokens SET revoked_ms = $1 WHERE revoked_ms IS NULL", [tx.now]);
      const oauthGrants = await tx.run("UPDATE oauth_families SET revoked_ms = $1, revoked_reason = 'key_rotated' WHERE revoked_ms IS NULL", [tx.now]);
      await tx.run("DELETE FROM oauth_tokens");
      await tx.run("DELETE FROM oauth_codes");
      const oauthClients = await tx.run("DELETE FROM oauth_clients WHERE secret_hash IS NOT NULL");
      return { apiTokens, oauthGrants, oauthClients };
    },
    async resealRows(sealer) {
      let rows = 0;
      for (const table of AUTHENTIC_TABLES) {
        const all = await allRows(tx, table);
        for (const row of all) {
          await tx.run(`UPDATE ${table.table} SET mac = $1 WHERE ${table.key.map((k, i) => `${k} = $${i + 2}`).join(" AND ")}`, [
            rowMacOf(sealer, table, row),
            ...table.key.map((k) => row[k]),
          ]);
        }
        rows += all.length;
      }
      return rows;
    },
  };
}

/** Rewrites the head row whole, its key id included (only a key rotation changes the key id). */
async function replaceHead(tx: PgTx, head: JournalHead): Promise<void> {
  const changed = await tx.run(
    `UPDATE journal_head SET key_id = $2, format = $3, seq = $4, mac = $5, base_seq = $6, base_mac = $7, stored_bytes = $8, tombstones = $9,
       checkpoint_operations = $10, checkpoint_digest = $11, checkpoint_mac = $12 WHERE id = 1 AND journal_id = $1`,
    [
      head.journalId,
      head.keyId,
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
    ],
  );
  if (changed !== 1) throw new Error("the journal head to re-sign is missing");
  tx.head = head;
}
