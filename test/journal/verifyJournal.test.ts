// Journal verification through the operations service on SQLite: an intact journal, a wrong key,
// tombstones, the sealer. Tampering with the chains themselves (deletion, insertion, edits, truncation,
// rollback, checkpoints) is tried on both stores in test/journal/support/chainTamperSuite.ts.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { createJournalSealer, MIN_JOURNAL_KEY_BYTES } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { createOperationsService } from "../../src/operations/createOperationsService.js";
import type { JournalVerdict } from "../../src/journal/verifyJournal.js";
import { DAY } from "../../src/config/units.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { manualClock, openHarness, REVERSIBLE_WRITES_UNATTENDED } from "../operations/support/harness.js";
import type { Harness } from "../operations/support/harness.js";
import { readTask, writeTask } from "../operations/support/tasks.js";

/** A journal with a few finished operations and a queued one: 11 events. */
async function populated(): Promise<Harness> {
  const fake = createFakeExecutor();
  const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
  await h.service.submit(readTask(randomUUID()));
  await h.service.submit(writeTask(randomUUID()));
  await h.service.submit(readTask(randomUUID(), "fail-once"));
  await h.service.runQueue();
  await h.service.submit(readTask(randomUUID()));
  return h;
}

function edit(h: Harness, sql: string, ...params: unknown[]): void {
  const db = openSqliteDatabase(h.dbPath);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function expectFault(verdict: JournalVerdict, fault: string, seq: number | null): void {
  assert.equal(verdict.ok, false, "tampering must be detected");
  assert.ok(!verdict.ok);
  assert.equal(verdict.fault, fault, verdict.message);
  assert.equal(verdict.seq, seq, verdict.message);
}

describe("journal verify", () => {
  test("an untouched journal verifies, every operation's chain event by event", async () => {
    const h = await populated();
    try {
      const verdict = await h.service.verifyJournal();
      assert.ok(verdict.ok, JSON.stringify(verdict));
      assert.equal(verdict.operations, 4);
      assert.ok(verdict.events >= 12);
    } finally {
      await h.close();
    }
  });

  test("a wrong key is reported as such, naming the first event", async () => {
    const h = await populated();
    try {
      const wrong = createJournalSealer(randomBytes(32));
      expectFault(await verifyJournal(h.store, wrong), "wrong_key", null);
      const service = createOperationsService({ store: h.store, sealer: wrong, digestKey: h.key, config: h.config });
      const submitted = await service.submit(readTask(randomUUID()));
      assert.ok(!submitted.ok, "nothing is appended under another key");
      assert.equal(submitted.code, "journal_tampered");
      assert.ok((await h.service.verifyJournal()).ok, "the journal was left intact");
    } finally {
      await h.close();
    }
  });

  test("a body removed without a tombstone allowing it is detected", async () => {
    const h = await populated();
    try {
      edit(h, "UPDATE journal_events SET body = NULL WHERE seq = 2");
      expectFault(await h.service.verifyJournal(), "missing_body", 2);
      const verdict = await h.service.verifyJournal();
      assert.ok(!verdict.ok && verdict.operationId !== null, "the fault names the operation whose chain holds the event");
    } finally {
      await h.close();
    }
  });

  test("tombstones: an edited one fails its MAC, a deleted one is missed by the head's count", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      for (let i = 0; i < 3; i += 1) await h.service.submit(readTask());
      await h.service.runQueue();
      clock.advance(2 * DAY);
      const compacted = await h.service.compactJournal({ olderThanMs: DAY });
      assert.ok(compacted.ok && compacted.operations === 3);
      assert.ok((await h.service.verifyJournal()).ok, "a compacted journal verifies");
      edit(h, "UPDATE operation_tombstones SET receipt_status = 'FAIL' WHERE operation_id = (SELECT min(operation_id) FROM operation_tombstones)");
      const edited = await h.service.verifyJournal();
      assert.ok(!edited.ok && edited.fault === "tombstone_mac");
      edit(h, "DELETE FROM operation_tombstones WHERE operation_id = (SELECT min(operation_id) FROM operation_tombstones)");
      expectFault(await h.service.verifyJournal(), "tombstone_count", null);
    } finally {
      await h.close();
    }
  });

  test("the sealer refuses a short key and compares MACs only when well formed", () => {
    assert.throws(() => createJournalSealer(randomBytes(MIN_JOURNAL_KEY_BYTES - 1)), RangeError);
    const sealer = createJournalSealer(randomBytes(32));
    const mac = sealer.genesis("j");
    assert.equal(sealer.macEquals(mac, mac), true);
    for (const bad of [mac.slice(2), `${mac}00`, mac.toUpperCase(), null, 42, `zz${mac.slice(2)}`]) assert.equal(sealer.macEquals(mac, bad), false);
  });
});

describe("journal key", () => {
  test("a store never appends to a journal written under another key", async () => {
    const h = await populated();
    try {
      const { openSqliteStore } = await import("../../src/store/sqlite/openSqliteStore.js");
      const { JournalKeyMismatchError } = await import("../../src/store/storeErrors.js");
      const foreign = openSqliteStore({ path: h.dbPath, sealer: createJournalSealer(randomBytes(32)), busyTimeoutMs: 1000 });
      try {
        await assert.rejects(foreign.claimNext("foreign", 1000), JournalKeyMismatchError);
      } finally {
        await foreign.close();
      }
      assert.ok((await h.service.verifyJournal()).ok, "nothing was written");
      const still = await h.service.status();
      assert.equal(still.store.phases.queued, 1, "the claim was rolled back with its refused event");
    } finally {
      await h.close();
    }
  });
});

describe("MAC input encoding", () => {
  test("the flat canonical form used for MAC inputs equals RFC 8785 canonical JSON and refuses what it cannot encode the same way", async () => {
    const { flatCanonicalJson } = await import("../../src/journal/createJournalSealer.js");
    const { canonicalJson } = await import("../../src/task/canonicalJson.js");
    const samples: Record<string, string | number | null>[] = [
      { journal: randomUUID(), seq: 1, type: "operation_created", operation: null, at: 1_796_063_492_208, bodyHash: "ab".repeat(32), prev: "cd".repeat(32) },
      { z: 'a"b\\c', a: 0, m: -42, B: "", "10": "keys that look numeric", "2": "sort as text" },
    ];
    for (const sample of samples) assert.equal(flatCanonicalJson(sample), canonicalJson(sample));
    assert.throws(() => flatCanonicalJson({ a: 1.5 }), TypeError);
    assert.throws(() => flatCanonicalJson({ a: "é" }), TypeError);
    assert.throws(() => flatCanonicalJson({ a: "\n" }), TypeError);
  });
});
