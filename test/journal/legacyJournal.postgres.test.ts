// PostgreSQL: a schema-2 database with a single-chain (format 1) journal, as errand left it before
// per-operation chains, is converted when a store opens it with the key (migration 3, then
// ensureJournalHeadPg in the same transaction): `journal verify` passes and work goes on. The old
// database is made as in legacyJournal.test.ts: written by this errand, re-sealed as one chain under
// the format-1 MACs, schema 3's columns, identity and table dropped.
import { AUTHENTIC_TABLES } from "../../src/store/rows/authenticRows.js";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import type { JournalSealer } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import type { NewOperation, OperationRecord } from "../../src/store/Store.js";
import { openPostgresStore } from "../../src/store/postgres/openPostgresStore.js";
import { dropSchema, freshSchema, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const database = await testDatabase();
const url = database.url ?? "";
const QUOTA = 64 * 1024 * 1024;

function newOperation(): NewOperation {
  const operationId = randomUUID();
  return {
    operationId,
    requestDigest: `hmac-sha256:${randomBytes(32).toString("hex")}`,
    risk: "read_only",
    maxAttempts: 2,
    taskJson: JSON.stringify({ operationId }),
    details: {},
  };
}

function finish(operation: OperationRecord) {
  const { operationId, requestDigest, risk, attempts, mutationBoundary } = operation;
  return {
    kind: "finish" as const,
    phase: "completed" as const,
    receipt: sampleReceipt({ status: "PASS", operationId, requestDigest, risk, attempts, mutationBoundary }),
    reason: "attempt_finished",
  };
}

async function makeLegacy(schema: string, sealer: JournalSealer): Promise<void> {
  await withSchemaClient(url, schema, async (client) => {
    await client.query("BEGIN");
    const head = (await client.query<{ journal_id: string; tombstones: string }>("SELECT journal_id, tombstones FROM journal_head")).rows[0];
    assert.ok(head !== undefined);
    const events = (
      await client.query<{ seq: string; operation_id: string | null; type: string; at_ms: string; body_hash: string }>(
        "SELECT seq, operation_id, type, at_ms, body_hash FROM journal_events ORDER BY seq",
      )
    ).rows;
    events.forEach((e, i) => assert.equal(Number(e.seq), i + 1, "an untouched journal numbers its events 1, 2, 3 …"));
    let prev = sealer.genesis(head.journal_id);
    for (const e of events) {
      const mac = sealer.legacyEventMac(head.journal_id, {
        seq: Number(e.seq),
        operationId: e.operation_id,
        type: e.type as never,
        atMs: Number(e.at_ms),
        bodyHash: e.body_hash,
        prevMac: prev,
      });
      await client.query("UPDATE journal_events SET prev_mac = $1, mac = $2 WHERE seq = $3", [prev, mac, e.seq]);
      prev = mac;
    }
    const fields = {
      journalId: head.journal_id,
      keyId: sealer.keyId,
      format: 1,
      seq: events.length,
      mac: prev,
      baseSeq: 0,
      baseMac: sealer.genesis(head.journal_id),
      storedBytes: 4_321,
      tombstones: Number(head.tombstones),
      checkpointOperations: 0,
      checkpointDigest: "",
    };
    await client.query("UPDATE journal_head SET seq = $1, mac = $2, base_seq = 0, base_mac = $3, stored_bytes = $4, checkpoint_mac = $5", [
      fields.seq,
      fields.mac,
      fields.baseMac,
      fields.storedBytes,
      sealer.legacyHeadMac(fields),
    ]);
    await client.query(`
DROP INDEX journal_events_chain;
ALTER TABLE journal_events ALTER COLUMN seq DROP IDENTITY;
ALTER TABLE journal_events DROP COLUMN chain_seq;
ALTER TABLE operations DROP COLUMN chain_seq, DROP COLUMN chain_mac, DROP COLUMN stored_bytes;
ALTER TABLE journal_head DROP COLUMN format, DROP COLUMN checkpoint_operations, DROP COLUMN checkpoint_digest;
DROP TABLE journal_checkpoint;
DROP INDEX operations_submitter;
ALTER TABLE operations DROP COLUMN submitted_by;
DROP TABLE site_grants;
DROP TABLE sites;
DROP TABLE owner_files;
ALTER TABLE api_tokens DROP COLUMN expires_ms, DROP COLUMN last_used_ms;
ALTER TABLE api_tokens DROP COLUMN scope;
${AUTHENTIC_TABLES.filter((t) => t.table !== "sites" && t.table !== "site_grants")
  .map((t) => `ALTER TABLE ${t.table} DROP COLUMN mac;`)
  .join("\n")}
DELETE FROM schema_migrations WHERE version >= 3;`);
    await client.query("COMMIT");
  });
}

describe("a PostgreSQL journal written before per-operation chains", database.skip === undefined ? {} : { skip: database.skip }, () => {
  test("is converted by the migrating transaction: it verifies, keeps every operation, and work goes on", async () => {
    const sealer = createJournalSealer(randomBytes(32));
    const schema = freshSchema();
    try {
      const first = newOperation();
      const second = newOperation();
      const writer = openPostgresStore({ connectionString: url, schema, sealer });
      try {
        await writer.createOperation(first, QUOTA);
        const claimed = await writer.claimNext("r", 60_000, first.operationId);
        assert.ok(claimed !== undefined);
        await writer.finishAttempt(claimed.lease, finish);
        const breaker = await writer.readBreaker("p");
        await writer.writeBreaker({ ...breaker, state: "OPEN", openUntilMs: Date.now() + 1000 }, breaker.revision);
        await writer.createOperation(second, QUOTA);
      } finally {
        await writer.close();
      }
      await makeLegacy(schema, sealer);
      const version = await withSchemaClient(url, schema, (c) => c.query<{ v: number }>("SELECT max(version) AS v FROM schema_migrations"));
      assert.equal(version.rows[0]?.v, 2, "the old schema");

      const store = openPostgresStore({ connectionString: url, schema, sealer });
      try {
        const head = await store.readJournalHead();
        assert.equal(head?.format, 2);
        assert.equal(head?.checkpointOperations, 2, "the conversion is the first checkpoint");
        const verdict = await verifyJournal(store, sealer);
        assert.ok(verdict.ok && verdict.operations === 2 && verdict.events === 5, JSON.stringify(verdict));
        const view = await store.readOperation(first.operationId);
        assert.ok(view?.kind === "live" && view.receiptEvent?.type === "operation_finished", "the receipt pointer still finds its event");
        const claimed = await store.claimNext("r", 60_000);
        assert.equal(claimed?.operation.operationId, second.operationId);
        assert.ok(claimed !== undefined);
        await store.finishAttempt(claimed.lease, finish);
        await store.createOperation(newOperation(), QUOTA);
        const after = await verifyJournal(store, sealer);
        assert.ok(after.ok && after.operations === 3, JSON.stringify(after));
      } finally {
        await store.close();
      }
    } finally {
      await dropSchema(url, schema);
    }
  });
});
