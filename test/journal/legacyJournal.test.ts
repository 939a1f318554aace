// A database written before per-operation chains (schema 7, one chain of every event, format-1 head)
// is converted by the first store that opens it with the key: `journal verify` passes on it, work goes
// on, and a format-1 journal that does not verify is left as it is and reported, never converted.
//
// The old database is made the way an older errand left it: a journal written by this errand is
// re-sealed as one chain under the format-1 MACs (journal/createJournalSealer: legacyEventMac,
// legacyHeadMac) and the columns and tables of schema 8 and later are dropped, so opening it runs migration 8 and the
// conversion exactly as on an upgraded installation.
import { AUTHENTIC_TABLES } from "../../src/store/rows/authenticRows.js";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import type { JournalSealer } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import type { Store } from "../../src/store/Store.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import { JournalNotConvertedError } from "../../src/store/storeErrors.js";
import { finish, newOperation } from "./support/journalOperations.js";

const QUOTA = 64 * 1024 * 1024;
const LEASE_MS = 60_000;

interface EventRecord {
  seq: number;
  operation_id: string | null;
  type: string;
  at_ms: number;
  body_hash: string;
}

/** Rewrites a journal written by this errand into the single chain and schema of an older one. */
function makeLegacy(path: string, sealer: JournalSealer): void {
  const db = openSqliteDatabase(path);
  try {
    db.immediate(() => {
      const head = db.prepare("SELECT journal_id, tombstones FROM journal_head").get() as { journal_id: string; tombstones: number };
      let prev = sealer.genesis(head.journal_id);
      const events = db.prepare("SELECT seq, operation_id, type, at_ms, body_hash FROM journal_events ORDER BY seq").all() as EventRecord[];
      events.forEach((e, i) => assert.equal(e.seq, i + 1, "an untouched journal numbers its events 1, 2, 3 …"));
      for (const e of events) {
        const mac = sealer.legacyEventMac(head.journal_id, {
          seq: e.seq,
          operationId: e.operation_id,
          type: e.type as never,
          atMs: e.at_ms,
          bodyHash: e.body_hash,
          prevMac: prev,
        });
        db.prepare("UPDATE journal_events SET prev_mac = ?, mac = ? WHERE seq = ?").run(prev, mac, e.seq);
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
        storedBytes: 12_345,
        tombstones: head.tombstones,
        checkpointOperations: 0,
        checkpointDigest: "",
      };
      db.prepare("UPDATE journal_head SET seq = ?, mac = ?, base_seq = 0, base_mac = ?, stored_bytes = ?, checkpoint_mac = ?").run(
        fields.seq,
        fields.mac,
        fields.baseMac,
        fields.storedBytes,
        sealer.legacyHeadMac(fields),
      );
      db.exec(`
DROP INDEX journal_events_chain;
ALTER TABLE journal_events DROP COLUMN chain_seq;
ALTER TABLE operations DROP COLUMN chain_seq;
ALTER TABLE operations DROP COLUMN chain_mac;
ALTER TABLE operations DROP COLUMN stored_bytes;
ALTER TABLE journal_head DROP COLUMN format;
ALTER TABLE journal_head DROP COLUMN checkpoint_operations;
ALTER TABLE journal_head DROP COLUMN checkpoint_digest;
DROP TABLE journal_checkpoint;
DROP INDEX operations_submitter;
ALTER TABLE operations DROP COLUMN submitted_by;
DROP TABLE site_grants;
DROP TABLE sites;
DROP TABLE owner_files;
ALTER TABLE api_tokens DROP COLUMN expires_ms;
ALTER TABLE api_tokens DROP COLUMN last_used_ms;
ALTER TABLE api_tokens DROP COLUMN scope;
${AUTHENTIC_TABLES.filter((t) => t.table !== "sites" && t.table !== "site_grants")
  .map((t) => `ALTER TABLE ${t.table} DROP COLUMN mac;`)
  .join("\n")}
DELETE FROM schema_migrations WHERE version >= 8;`);
    });
  } finally {
    db.close();
  }
}

/** A finished operation, a queued one and a breaker change, written and then turned into an old database. */
async function legacyDatabase(sealer: JournalSealer): Promise<{ path: string; home: string; finished: string; queued: string }> {
  const home = mkdtempSync(join(tmpdir(), "errand-legacy-"));
  const path = join(home, "errand.db");
  const store = openSqliteStore({ path, sealer, busyTimeoutMs: 1000 });
  const first = newOperation();
  const second = newOperation();
  try {
    await store.createOperation(first, QUOTA);
    const claimed = await store.claimNext("r", LEASE_MS, first.operationId);
    assert.ok(claimed !== undefined);
    await store.finishAttempt(claimed.lease, finish);
    const breaker = await store.readBreaker("p");
    await store.writeBreaker({ ...breaker, state: "OPEN", openUntilMs: Date.now() + 1000 }, breaker.revision);
    await store.createOperation(second, QUOTA);
  } finally {
    await store.close();
  }
  makeLegacy(path, sealer);
  return { path, home, finished: first.operationId, queued: second.operationId };
}

async function withStore<T>(path: string, sealer: JournalSealer, body: (store: Store) => Promise<T>): Promise<T> {
  const store = openSqliteStore({ path, sealer, busyTimeoutMs: 1000 });
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

describe("a journal written before per-operation chains", () => {
  test("is converted when a store opens it with the key: it verifies, keeps every operation, and work goes on", async () => {
    const sealer = createJournalSealer(randomBytes(32));
    const legacy = await legacyDatabase(sealer);
    try {
      const old = openSqliteDatabase(legacy.path, { readonly: true });
      assert.equal((old.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number }).v, 7, "the old schema");
      old.close();
      await withStore(legacy.path, sealer, async (store) => {
        const head = await store.readJournalHead();
        assert.equal(head?.format, 2);
        assert.equal(head?.checkpointOperations, 2, "the conversion is the first checkpoint");
        const verdict = await verifyJournal(store, sealer);
        assert.ok(verdict.ok, JSON.stringify(verdict));
        assert.equal(verdict.operations, 2);
        assert.equal(verdict.events, 5, "3 + 1 operation events and 1 breaker change");
        const view = await store.readOperation(legacy.finished);
        assert.ok(view?.kind === "live" && view.receiptEvent?.type === "operation_finished", "the receipt pointer still finds its event");

        const claimed = await store.claimNext("r", LEASE_MS);
        assert.equal(claimed?.operation.operationId, legacy.queued, "the queued operation runs on from its converted chain");
        assert.ok(claimed !== undefined);
        await store.finishAttempt(claimed.lease, finish);
        await store.createOperation(newOperation(), QUOTA);
        const after = await verifyJournal(store, sealer);
        assert.ok(after.ok && after.operations === 3, JSON.stringify(after));

        // Deleting an operation that existed before the conversion is caught by the conversion's checkpoint.
        const db = openSqliteDatabase(legacy.path);
        db.prepare("DELETE FROM journal_events WHERE operation_id = ?").run(legacy.finished);
        db.prepare("DELETE FROM operations WHERE operation_id = ?").run(legacy.finished);
        db.close();
        const deleted = await verifyJournal(store, sealer);
        assert.ok(!deleted.ok && deleted.fault === "missing_operation" && deleted.operationId === legacy.finished, JSON.stringify(deleted));
      });
    } finally {
      rmSync(legacy.home, { recursive: true, force: true });
    }
  });

  test("that does not verify is not converted: verify names the old fault, and nothing is appended to it", async () => {
    const sealer = createJournalSealer(randomBytes(32));
    const legacy = await legacyDatabase(sealer);
    try {
      const db = openSqliteDatabase(legacy.path);
      db.prepare("UPDATE journal_events SET at_ms = at_ms + 1 WHERE seq = 2").run();
      db.close();
      await withStore(legacy.path, sealer, async (store) => {
        assert.equal((await store.readJournalHead())?.format, 1, "left in its old form");
        const verdict = await verifyJournal(store, sealer);
        assert.ok(!verdict.ok && verdict.fault === "mac" && verdict.seq === 2, JSON.stringify(verdict));
        await assert.rejects(store.claimNext("r", LEASE_MS), JournalNotConvertedError);
        await assert.rejects(store.createOperation(newOperation(), QUOTA), JournalNotConvertedError);
      });
    } finally {
      rmSync(legacy.home, { recursive: true, force: true });
    }
  });
});
