import type { JournalHead } from "../../../journal/journalTypes.js";
import type { ArtifactMediaType } from "../../../receipt/artifactTypes.js";
import type { RekeyTransaction } from "../../rotateKeyInTransaction.js";
import type { SecretSourceKind } from "../../SecretStore.js";
import type { OperationPhase } from "../../Store.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../../rows/authenticRows.js";
import { insertEvent } from "../appendJournalEvent.js";
import { allRows, sealAllRows } from "../authenticTableSql.js";
import { selectHead } from "../journalHeadSql.js";
import type { SqliteContext } from "../sqliteContext.js";
import { dropExpiredArtifacts } from "./artifacts/artifactSql.js";
import { readCheckpoint } from "./checkpoint.js";
import { dropExpiredResults } from "./heldResults.js";
import { countOperationEvents, readJournalChain, readJournalEvents, readTombstones } from "./journalReadSql.js";
import { readOperationEvents, readOperationStates } from "./readOperationEvents.js";

const HEAD_COLUMNS =
  "key_id = @keyId, format = @format, seq = @seq, mac = @mac, base_seq = @baseSeq, base_mac = @baseMac, stored_bytes = @storedBytes, tombstones = @tombstones, checkpoint_operations = @checkpointOperations, checkpoint_digest = @checkpointDigest, checkpoint_mac = @checkpointMac";

/**
 * A key rotation's statements on SQLite (store/rotateKeyInTransaction), all on the connection whose
 * BEGIN IMMEDIATE transaction the rotation runs in (openSqliteKeyRotationStore). Each is synchronous;
 * the promises only fit the interface both backends share.
 */
export function rekeySql(ctx: SqliteContext): RekeyTransaction {
  const now = ctx.clock();
  const done = <T>(value: T): Promise<T> => Promise.resolve(value);
  return {
    now,
    // JournalSource
    readJournalHead: () => done(selectHead(ctx)),
    readJournalEvents: (afterSeq, limit) => done(readJournalEvents(ctx, afterSeq, limit)),
    readJournalChain: (afterChainSeq, limit) => done(readJournalChain(ctx, afterChainSeq, limit)),
    readTombstones: (afterOperationId, limit) => done(readTombstones(ctx, afterOperationId, limit)),
    readOperationStates: (afterOperationId, limit) => done(readOperationStates(ctx, afterOperationId, limit)),
    readOperationEvents: (operationId) => done(readOperationEvents(ctx, operationId)),
    countOperationEvents: () => done(countOperationEvents(ctx)),
    readCheckpoint: (afterOperationId, limit) => done(readCheckpoint(ctx, afterOperationId, limit)),

    // JournalResigning
    writeEventMacs(updates) {
      const update = ctx.sql("UPDATE journal_events SET prev_mac = ?, mac = ? WHERE seq = ?");
      for (const u of updates) update.run(u.prevMac, u.mac, u.seq);
      return done(undefined);
    },
    writeOperationChainMac: (operationId, chainMac) =>
      done(void ctx.sql("UPDATE operations SET chain_mac = ? WHERE operation_id = ?").run(chainMac, operationId)),
    writeTombstoneMac: (operationId, mac) => done(void ctx.sql("UPDATE operation_tombstones SET mac = ? WHERE operation_id = ?").run(mac, operationId)),
    replaceCheckpoint(entries) {
      ctx.sql("DELETE FROM journal_checkpoint").run();
      const insert = ctx.sql("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) VALUES (?, ?, ?)");
      for (const e of entries) insert.run(e.operationId, e.chainSeq, e.chainMac);
      return done(undefined);
    },
    replaceHead: (head) => done(replaceHead(ctx, head)),
    insertJournalEvent(event, head) {
      insertEvent(ctx, event);
      replaceHead(ctx, head);
      return done(undefined);
    },

    // RekeyTransaction
    unfinishedOperations: (limit) =>
      done(
        (
          ctx
            .sql("SELECT operation_id, phase FROM operations WHERE phase IN ('awaiting_approval', 'queued', 'running') ORDER BY operation_id LIMIT ?")
            .all(limit) as { operation_id: string; phase: OperationPhase }[]
        ).map((r) => ({
          operationId: r.operation_id,
          phase: r.phase,
        })),
      ),
    unauthenticRows: (sealer) => done(AUTHENTIC_TABLES.flatMap((table) => unauthenticIn(sealer, table, allRows(ctx.db, table)))),
    dropStaleEvidence() {
      const heldResults =
        dropExpiredResults(ctx) + ctx.sql("DELETE FROM held_results WHERE operation_id NOT IN (SELECT operation_id FROM operations)").run().changes;
      return done({ heldResults, artifacts: dropExpiredArtifacts(ctx) });
    },
    sealedSecrets: () =>
      done(
        (
          ctx.sql("SELECT name, sites_json, source_kind, sealed FROM secrets ORDER BY name").all() as {
            name: string;
            sites_json: string;
            source_kind: SecretSourceKind;
            sealed: string;
          }[]
        ).map((r) => ({
          name: r.name,
          sites: JSON.parse(r.sites_json) as string[],
          sourceKind: r.source_kind,
          sealed: r.sealed,
        })),
      ),
    writeSecretSealed: (name, sealed) => done(void ctx.sql("UPDATE secrets SET sealed = ? WHERE name = ?").run(sealed, name)),
    sealedSessions: () =>
      done(
        (
          ctx.sql("SELECT name, origins_json, defined_ms, sealed_session FROM sites WHERE sealed_session IS NOT NULL ORDER BY name").all() as {
            name: string;
            origins_json: string;
            defined_ms: number;
            sealed_session: string;
          }[]
        ).map((r) => ({
          name: r.name,
          origins: JSON.parse(r.origins_json) as string[],
          definedMs: r.defined_ms,
          sealed: r.sealed_session,
        })),
      ),
    writeSessionSealed: (name, sealed) => done(void ctx.sql("UPDATE sites SET sealed_session = ? WHERE name = ?").run(sealed, name)),
    ownerFileNames: () => done((ctx.sql("SELECT name FROM owner_files ORDER BY name").all() as { name: string }[]).map((r) => r.name)),
    ownerFile: (name) =>
      done(
        ctx.sql("SELECT name, bytes, sha256, sealed FROM owner_files WHERE name = ?").get(name) as
          { name: string; bytes: number; sha256: string; sealed: string } | undefined,
      ),
    writeOwnerFileSealed: (name, sealed) => done(void ctx.sql("UPDATE owner_files SET sealed = ? WHERE name = ?").run(sealed, name)),
    heldResults: () =>
      done(
        (
          ctx
            .sql(
              "SELECT h.operation_id, h.attempt, h.sealed, o.request_digest FROM held_results h JOIN operations o ON o.operation_id = h.operation_id ORDER BY h.operation_id",
            )
            .all() as {
            operation_id: string;
            attempt: number;
            sealed: string;
            request_digest: string;
          }[]
        ).map((r) => ({ operationId: r.operation_id, attempt: r.attempt, sealed: r.sealed, requestDigest: r.request_digest })),
      ),
    writeHeldResultSealed: (operationId, sealed) => done(void ctx.sql("UPDATE held_results SET sealed = ? WHERE operation_id = ?").run(sealed, operationId)),
    deleteHeldResult: (operationId) => done(void ctx.sql("DELETE FROM held_results WHERE operation_id = ?").run(operationId)),
    artifactKeys: () =>
      done(
        (ctx.sql("SELECT operation_id, idx FROM artifacts ORDER BY operation_id, idx").all() as { operation_id: string; idx: number }[]).map((r) => ({
          operationId: r.operation_id,
          index: r.idx,
        })),
      ),
    artifact(operationId, index) {
      const row = ctx
        .sql(
          "SELECT a.attempt, a.media_type, a.sha256, a.sealed, o.request_digest FROM artifacts a JOIN operations o ON o.operation_id = a.operation_id WHERE a.operation_id = ? AND a.idx = ?",
        )
        .get(operationId, index) as { attempt: number; media_type: ArtifactMediaType; sha256: string; sealed: string; request_digest: string } | undefined;
      return done(
        row === undefined
          ? undefined
          : { operationId, index, attempt: row.attempt, mediaType: row.media_type, sha256: row.sha256, sealed: row.sealed, requestDigest: row.request_digest },
      );
    },
    writeArtifactSealed: (operationId, index, sealed) =>
      done(void ctx.sql("UPDATE artifacts SET sealed = ? WHERE operation_id = ? AND idx = ?").run(sealed, operationId, index)),
    deleteArtifact: (operationId, index) => done(void ctx.sql("DELETE FROM artifacts WHERE operation_id = ? AND idx = ?").run(operationId, index)),
    endHttpCredentials() {
      const apiTokens = ctx.sql("UPDATE api_tokens SET revoked_ms = ? WHERE revoked_ms IS NULL").run(now).changes;
      const oauthGrants = ctx.sql("UPDATE oauth_families SET revoked_ms = ?, revoked_reason = 'key_rotated' WHERE revoked_ms IS NULL").run(now).changes;
      ctx.sql("DELETE FROM oauth_tokens").run();
      ctx.sql("DELETE FROM oauth_codes").run();
      const oauthClients = ctx.sql("DELETE FROM oauth_clients WHERE secret_hash IS NOT NULL").run().changes;
      return done({ apiTokens, oauthGrants, oauthClients });
    },
    resealRows(sealer) {
      let rows = 0;
      for (const table of AUTHENTIC_TABLES) {
        sealAllRows(ctx.db, sealer, table);
        rows += (ctx.sql(`SELECT count(*) AS n FROM ${table.table}`).get() as { n: number }).n;
      }
      return done(rows);
    },
  };
}

/** Rewrites the head row whole, its key id included (only a key rotation changes the key id). */
function replaceHead(ctx: SqliteContext, head: JournalHead): void {
  const changed = ctx.sql(`UPDATE journal_head SET ${HEAD_COLUMNS} WHERE id = 1 AND journal_id = @journalId`).run(head).changes;
  if (changed !== 1) throw new Error("the journal head to re-sign is missing");
}
