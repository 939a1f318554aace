// Compaction: terminal operations older than a duration become authenticated tombstones.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { DAY, HOUR } from "../../src/config/units.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { REVERSIBLE_WRITES_UNATTENDED, manualClock, openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

describe("journal compaction", () => {
  test("compacted operations are reported as compacted (not 'not found'), the journal still verifies, and space is freed", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now });
    try {
      const old = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of old) await h.service.submit(readTask(id));
      await h.service.runQueue();
      const queued = randomUUID();
      const running = randomUUID();
      await h.service.submit(readTask(running));
      assert.ok((await h.store.claimNext("elsewhere", 10 * DAY)) !== undefined);
      clock.advance(2 * DAY);
      const recent = randomUUID();
      await h.service.submit(readTask(recent));
      await h.service.runQueue();
      await h.service.submit(readTask(queued));
      const before = await h.service.status();

      const report = await h.service.compactJournal({ olderThanMs: DAY });
      assert.ok(report.ok);
      assert.equal(report.operations, 3);
      assert.equal(report.eventsRemoved, report.eventBodies, "the compacted operations' chains were removed with their rows");
      assert.ok(report.storedBytes < before.journal.storedBytes, `${report.storedBytes} < ${before.journal.storedBytes}`);
      for (const id of [queued, running]) {
        const pending = await h.service.inspect(id);
        assert.ok(pending.ok && pending.status === "pending", "queued and running operations are never compacted");
      }

      const inspected = await h.service.inspect(old[0]!);
      assert.ok(inspected.ok);
      assert.equal(inspected.status, "compacted");
      assert.ok("compacted" in inspected);
      assert.equal(inspected.compacted.receiptStatus, "PASS");
      assert.equal(inspected.handle.phase, "completed");
      const collected = await h.service.collect(old[1]!);
      assert.ok(collected.ok);
      assert.equal(collected.status, "completed");
      assert.equal(collected.receipt, undefined);
      assert.equal(collected.compacted?.receiptStatus, "PASS");
      const live = await h.service.collect(recent);
      assert.ok(live.ok && live.receipt?.status === "PASS", "recent operations keep their receipts");

      const verdict = await h.service.verifyJournal();
      assert.ok(verdict.ok, JSON.stringify(verdict));
      assert.equal(verdict.tombstones, 3);
      assert.equal(verdict.operations, 3, "queued, running and recent keep their chains");
      assert.equal(verdict.checkpointed, 3, "the compaction ended with a checkpoint of the operations it left");
    } finally {
      await h.close();
    }
  });

  test("a compacted id keeps its identity: resubmitting the same task is answered, a different one is identity_mismatch", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      await h.service.runQueue();
      clock.advance(2 * DAY);
      await h.service.compactJournal({ olderThanMs: DAY });
      const same = await h.service.submit(readTask(id));
      assert.ok(same.ok);
      assert.equal(same.created, false);
      assert.equal(same.status, "completed");
      const other = await h.service.submit(readTask(id, "changed"));
      assert.ok(!other.ok);
      assert.equal(other.code, "identity_mismatch");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 1, "a compacted operation is never run again");
    } finally {
      await h.close();
    }
  });

  test("uncertain operations are not compacted; compaction frees quota for new submits", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: { ...REVERSIBLE_WRITES_UNATTENDED, journalQuotaBytes: 16_384 } });
    try {
      const uncertain = randomUUID();
      await h.service.submit(writeTask(uncertain, "write-fail-after"));
      let done = 0;
      for (;;) {
        const result = await h.service.submit(readTask());
        if (!result.ok) {
          assert.equal(result.code, "journal_quota_exceeded");
          break;
        }
        await h.service.runQueue();
        done += 1;
      }
      assert.ok(done > 3);
      const queued = randomUUID();
      clock.advance(2 * HOUR);
      const refused = await h.service.submit(readTask(queued));
      assert.ok(!refused.ok && refused.code === "journal_quota_exceeded");

      const report = await h.service.compactJournal({ olderThanMs: HOUR });
      assert.ok(report.ok);
      assert.equal(report.operations, done, "every finished operation but the uncertain one");
      const accepted = await h.service.submit(readTask(queued));
      assert.ok(accepted.ok, "space was freed");
      const kept = await h.service.inspect(uncertain);
      assert.ok(kept.ok && kept.status === "uncertain", "uncertain operations keep their evidence");
      assert.ok((await h.service.verifyJournal()).ok);
      const again = await h.service.compactJournal({ olderThanMs: HOUR });
      assert.ok(again.ok && again.operations === 0);
      assert.ok((await h.service.verifyJournal()).ok, "compacting twice keeps the chain valid");
    } finally {
      await h.close();
    }
  });

  test("compaction refuses to run on a journal that does not verify", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now });
    try {
      await h.service.submit(readTask());
      await h.service.runQueue();
      const { openSqliteDatabase } = await import("../../src/store/sqlite/sqliteBinding.js");
      const db = openSqliteDatabase(h.dbPath);
      db.prepare("UPDATE journal_events SET at_ms = at_ms + 1 WHERE seq = 1").run();
      db.close();
      clock.advance(2 * DAY);
      const result = await h.service.compactJournal({ olderThanMs: DAY });
      assert.ok(!result.ok);
      assert.equal(result.code, "journal_tampered");
    } finally {
      await h.close();
    }
  });
});
