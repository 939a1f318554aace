// collect and inspect: statuses, waiting, live (ephemeral) values, authentication against the journal.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { openHarness } from "./support/harness.js";
import { readTask } from "./support/tasks.js";

describe("collect and inspect", () => {
  test("collect says pending without a receipt, then completed with the durable receipt", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(readTask(id));
      assert.ok(submitted.ok);
      const pending = await h.service.collect(id);
      assert.ok(pending.ok);
      assert.equal(pending.status, "pending");
      assert.equal(pending.receipt, undefined);
      await h.service.runQueue();
      const done = await h.service.collect(id);
      assert.ok(done.ok);
      assert.equal(done.status, "completed");
      assert.equal(done.receipt?.status, "PASS");
      assert.equal(done.receipt?.operationId, id);
      assert.equal(done.receipt?.requestDigest, submitted.handle.requestDigest);
      assert.ok(done.handle.revision > submitted.handle.revision, "every call returns a fresh handle");
    } finally {
      await h.close();
    }
  });

  test("collect --wait returns as soon as another process finishes the operation, and gives up at its timeout", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness();
    const runner = await h.reopen(fake.execute);
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const timedOut = await h.service.collect(id, { wait: true, timeoutMs: 120, pollIntervalMs: 20 });
      assert.ok(timedOut.ok);
      assert.equal(timedOut.status, "pending");
      const waiting = h.service.collect(id, { wait: true, timeoutMs: 10_000, pollIntervalMs: 20 });
      await runner.service.runQueue();
      const done = await waiting;
      assert.ok(done.ok);
      assert.equal(done.status, "completed");
    } finally {
      await h.close();
    }
  });

  test("pollIntervalMs outside 0..60000 and a negative timeout are refused", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      for (const options of [{ pollIntervalMs: 60_001 }, { pollIntervalMs: -1 }, { pollIntervalMs: 1.5 }, { timeoutMs: -5 }]) {
        const result = await h.service.collect(id, { wait: true, ...options });
        assert.ok(!result.ok);
        assert.equal(result.code, "invalid_number");
      }
      const zero = await h.service.collect(id, { wait: true, pollIntervalMs: 0, timeoutMs: 30 });
      assert.ok(zero.ok);
    } finally {
      await h.close();
    }
  });

  test("extracted values are held sealed for ERRAND_RESULT_TTL: every collect from any process gets them, then they are dropped; never in the journal or in the clear", async () => {
    let now = Date.parse("2026-12-01T10:00:00Z");
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: () => now, config: { resultTtlMs: 10 * 60_000 } });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "extract"));
      await h.service.runQueue();
      const first = await h.service.collect(id);
      assert.ok(first.ok);
      assert.deepEqual(first.ephemeral, { ephemeral: true, outputs: { title: "Example Domain" } });
      assert.equal(first.receipt?.outputs, undefined, "minimal retention: not in the durable receipt");
      const second = await h.service.collect(id);
      assert.ok(second.ok);
      assert.deepEqual(second.ephemeral, first.ephemeral, "served again, not once");
      const elsewhere = await (await h.reopen()).service.collect(id);
      assert.ok(elsewhere.ok);
      assert.deepEqual(elsewhere.ephemeral, first.ephemeral, "another process on the same store serves them too");

      const db = openSqliteDatabase(h.dbPath, { readonly: true });
      const hits = db.prepare("SELECT count(*) AS n FROM journal_events WHERE body LIKE '%Example Domain%' AND type <> 'operation_created'").get() as {
        n: number;
      };
      const tasks = db.prepare("SELECT count(*) AS n FROM journal_events WHERE body LIKE '%title%'").get() as { n: number };
      const held = db.prepare("SELECT sealed FROM held_results WHERE operation_id = ?").get(id) as { sealed: string };
      db.close();
      assert.equal(tasks.n, 0, "the extracted value is in no journal event");
      assert.equal(hits.n, 0);
      assert.match(held.sealed, /^aead1\./);
      assert.ok(!held.sealed.includes("Example Domain"));

      // A sealed result moved to another operation's row does not open (bound to operation, digest, attempt).
      const other = randomUUID();
      await h.service.submit(readTask(other, "pass"));
      await h.service.runQueue();
      const rw = openSqliteDatabase(h.dbPath);
      rw.prepare("INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES (?, 1, ?, ?)").run(other, held.sealed, now + 60_000);
      rw.close();
      const moved = await h.service.collect(other);
      assert.ok(moved.ok);
      assert.equal(moved.ephemeral, undefined);

      now += 10 * 60_000;
      const late = await h.service.collect(id);
      assert.ok(late.ok);
      assert.equal(late.status, "completed");
      assert.equal(late.ephemeral, undefined, "dropped after ERRAND_RESULT_TTL");
      assert.ok((await h.store.dropExpiredResults()) >= 1);
    } finally {
      await h.close();
    }
  });

  test("with evidenceRetention full the extracted values are part of the durable receipt", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "extract", { evidenceRetention: "full" }));
      await h.service.runQueue();
      const collected = await (await h.reopen()).service.collect(id);
      assert.ok(collected.ok);
      assert.deepEqual(collected.receipt?.outputs, { title: { untrusted: true, text: "Example Domain" } });
    } finally {
      await h.close();
    }
  });

  test("inspect reports attempts as a number and the attempt list; an unknown id is operation_not_found", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "fail-once"));
      await h.service.runQueue();
      const inspected = await h.service.inspect(id);
      assert.ok(inspected.ok && "operation" in inspected);
      assert.equal(inspected.status, "completed");
      assert.equal(inspected.operation.attempts, 2);
      assert.deepEqual(
        inspected.attempts.map((a) => a.outcome),
        ["FAIL", "PASS"],
      );
      const missing = await h.service.inspect(randomUUID());
      assert.ok(!missing.ok);
      assert.equal(missing.code, "operation_not_found");
    } finally {
      await h.close();
    }
  });

  test("an operation row edited behind errand's back is refused as journal_tampered by inspect and collect", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const queued = randomUUID();
      const done = randomUUID();
      await h.service.submit(readTask(done, "fail"));
      await h.service.runQueue();
      await h.service.submit(readTask(queued));
      const db = openSqliteDatabase(h.dbPath);
      db.prepare("UPDATE operations SET phase = 'completed', receipt_status = 'PASS' WHERE operation_id = ?").run(queued);
      db.prepare("UPDATE operations SET receipt_status = 'PASS' WHERE operation_id = ?").run(done);
      db.close();
      for (const id of [queued, done]) {
        const inspected = await h.service.inspect(id);
        assert.ok(!inspected.ok);
        assert.equal(inspected.code, "journal_tampered");
        const collected = await h.service.collect(id);
        assert.ok(!collected.ok);
        assert.equal(collected.code, "journal_tampered");
      }
    } finally {
      await h.close();
    }
  });
});
