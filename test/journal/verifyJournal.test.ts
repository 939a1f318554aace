// Journal verification against every kind of tampering, done by editing the SQLite file directly.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { createJournalSealer, MIN_JOURNAL_KEY_BYTES } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { createOperationsService } from "../../src/operations/createOperationsService.js";
import type { JournalVerdict } from "../../src/journal/verifyJournal.js";
import { DAY } from "../../src/config/units.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import type { Harness } from "../operations/support/harness.js";
import { readTask, writeTask } from "../operations/support/tasks.js";

/** A journal with a few finished operations and a queued one: 11 events. */
async function populated(): Promise<Harness> {
  const fake = createFakeExecutor();
  const h = openHarness({ execute: fake.execute });
  await h.service.submit(readTask(randomUUID()));
  await h.service.submit(writeTask(randomUUID()));
  await h.service.submit(readTask(randomUUID(), "fail-once"));
  await h.service.runQueue();
  await h.service.submit(readTask(randomUUID()));
  return h;
}

function headSeq(h: Harness): number {
  const db = new Database(h.dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT seq FROM journal_head").get() as { seq: number }).seq;
  } finally {
    db.close();
  }
}

function edit(h: Harness, sql: string, ...params: unknown[]): void {
  const db = new Database(h.dbPath);
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
  test("an untouched journal verifies, event by event up to the head", async () => {
    const h = await populated();
    try {
      const verdict = await h.service.verifyJournal();
      assert.ok(verdict.ok);
      assert.equal(verdict.events, verdict.headSeq);
      assert.ok(verdict.events >= 12);
    } finally {
      await h.close();
    }
  });

  test("modification of an event body is detected at that event (body hash)", async () => {
    const h = await populated();
    try {
      edit(h, "UPDATE journal_events SET body = replace(body, 'PASS', 'FAIL') WHERE seq = (SELECT min(seq) FROM journal_events WHERE body LIKE '%\"PASS\"%')");
      const db = new Database(h.dbPath, { readonly: true });
      const seq = db.prepare("SELECT min(seq) AS s FROM journal_events WHERE body LIKE '%\"FAIL\"%'").get() as { s: number };
      db.close();
      expectFault(await h.service.verifyJournal(), "body_hash", seq.s);
    } finally {
      await h.close();
    }
  });

  test("modification with a recomputed body hash (no key) is detected at that event (MAC)", async () => {
    const h = await populated();
    try {
      const db = new Database(h.dbPath);
      const row = db.prepare("SELECT seq, body FROM journal_events WHERE seq = 3").get() as { seq: number; body: string };
      const forged = row.body.replace(/"attempts":\d/, '"attempts":9');
      const { createHash } = await import("node:crypto");
      db.prepare("UPDATE journal_events SET body = ?, body_hash = ? WHERE seq = 3").run(forged, createHash("sha256").update(forged).digest("hex"));
      db.close();
      expectFault(await h.service.verifyJournal(), "mac", 3);
    } finally {
      await h.close();
    }
  });

  test("modification of an event's type or time is detected at that event (MAC)", async () => {
    const h = await populated();
    try {
      edit(h, "UPDATE journal_events SET at_ms = at_ms + 1 WHERE seq = 5");
      expectFault(await h.service.verifyJournal(), "mac", 5);
    } finally {
      await h.close();
    }
  });

  test("deletion of an event in the middle is detected at the missing sequence number", async () => {
    const h = await populated();
    try {
      edit(h, "DELETE FROM journal_events WHERE seq = 4");
      expectFault(await h.service.verifyJournal(), "missing_event", 4);
    } finally {
      await h.close();
    }
  });

  test("deletion of an event followed by renumbering is detected at the first renumbered event (chain)", async () => {
    const h = await populated();
    try {
      const db = new Database(h.dbPath);
      db.prepare("DELETE FROM journal_events WHERE seq = 4").run();
      const rows = db.prepare("SELECT seq FROM journal_events WHERE seq > 4 ORDER BY seq").all() as { seq: number }[];
      for (const { seq } of rows) db.prepare("UPDATE journal_events SET seq = ? WHERE seq = ?").run(seq - 1, seq);
      db.prepare("UPDATE journal_head SET seq = seq - 1").run();
      db.close();
      const verdict = await h.service.verifyJournal();
      assert.ok(!verdict.ok);
      assert.ok(verdict.fault === "head_mac", "the head cannot be re-signed without the key");
      edit(h, "UPDATE journal_head SET seq = seq + 1");
      expectFault(await h.service.verifyJournal(), "chain", 4);
    } finally {
      await h.close();
    }
  });

  test("insertion of a forged event in the middle is detected at the inserted event", async () => {
    const h = await populated();
    try {
      const db = new Database(h.dbPath);
      const rows = db.prepare("SELECT seq FROM journal_events WHERE seq >= 6 ORDER BY seq DESC").all() as { seq: number }[];
      for (const { seq } of rows) db.prepare("UPDATE journal_events SET seq = ? WHERE seq = ?").run(seq + 1, seq);
      db.prepare("INSERT INTO journal_events (seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac) SELECT 6, operation_id, type, at_ms, body, body_hash, mac, mac FROM journal_events WHERE seq = 5").run();
      db.close();
      expectFault(await h.service.verifyJournal(), "mac", 6);
    } finally {
      await h.close();
    }
  });

  test("insertion after the last event is detected as beyond the authenticated head", async () => {
    const h = await populated();
    try {
      const head = { seq: headSeq(h) };
      edit(h, "INSERT INTO journal_events (seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac) SELECT seq + 1, operation_id, type, at_ms, body, body_hash, mac, mac FROM journal_events WHERE seq = ?", head.seq);
      expectFault(await h.service.verifyJournal(), "beyond_head", head.seq + 1);
    } finally {
      await h.close();
    }
  });

  test("reordering two events is detected at the first of them (chain)", async () => {
    const h = await populated();
    try {
      const db = new Database(h.dbPath);
      db.prepare("UPDATE journal_events SET seq = -1 WHERE seq = 7").run();
      db.prepare("UPDATE journal_events SET seq = 7 WHERE seq = 8").run();
      db.prepare("UPDATE journal_events SET seq = 8 WHERE seq = -1").run();
      db.close();
      expectFault(await h.service.verifyJournal(), "chain", 7);
    } finally {
      await h.close();
    }
  });

  test("truncation of the tail is detected against the head checkpoint at the first missing event", async () => {
    const h = await populated();
    try {
      const head = { seq: headSeq(h) };
      edit(h, "DELETE FROM journal_events WHERE seq > ?", head.seq - 2);
      expectFault(await h.service.verifyJournal(), "missing_event", head.seq - 1);
    } finally {
      await h.close();
    }
  });

  test("truncation together with an edited head fails the head checkpoint's MAC", async () => {
    const h = await populated();
    try {
      edit(h, "DELETE FROM journal_events WHERE seq = (SELECT max(seq) FROM journal_events)");
      edit(h, "UPDATE journal_head SET seq = seq - 1, mac = (SELECT mac FROM journal_events WHERE seq = (SELECT max(seq) FROM journal_events))");
      expectFault(await h.service.verifyJournal(), "head_mac", null);
    } finally {
      await h.close();
    }
  });

  test("a wrong key is reported as such, naming the first event", async () => {
    const h = await populated();
    try {
      const wrong = createJournalSealer(randomBytes(32));
      expectFault(await verifyJournal(h.store, wrong), "wrong_key", 1);
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
    } finally {
      await h.close();
    }
  });

  test("tombstones: an edited one fails its MAC, a deleted one is missed by the head's count", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = openHarness({ execute: fake.execute, clock: clock.now });
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
      { z: "a\"b\\c", a: 0, m: -42, B: "", "10": "keys that look numeric", "2": "sort as text" },
    ];
    for (const sample of samples) assert.equal(flatCanonicalJson(sample), canonicalJson(sample));
    assert.throws(() => flatCanonicalJson({ a: 1.5 }), TypeError);
    assert.throws(() => flatCanonicalJson({ a: "é" }), TypeError);
    assert.throws(() => flatCanonicalJson({ a: "\n" }), TypeError);
  });
});
