// The attacker holds write access to errand.db but not the key. Whatever they change in the
// operations rows (phase, attempts, boundary, risk, the attempt history), the runner refuses the
// operation as journal_tampered before it claims, resumes or recovers it, nothing reaches the site,
// inspect never shows a forged history, and journal verify names the edited row.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { emptyNetworkEvidence } from "../../src/receipt/emptyNetworkEvidence.js";
import { untrusted } from "../../src/receipt/untrustedText.js";
import type { Task } from "../../src/task/taskTypes.js";
import { startCountingServer } from "./support/countingServer.js";
import type { CountingServer } from "./support/countingServer.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { REVERSIBLE_WRITES_UNATTENDED, manualClock, openHarness } from "./support/harness.js";
import type { Harness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";

let site: CountingServer;
before(async () => {
  site = await startCountingServer();
});
after(() => site.close());

function consequentialTask(id: string): Record<string, unknown> {
  return { ...writeTask(id, undefined, { target: { url: "https://shop.example.com/cart" } }), risk: "consequential" };
}

/** Runs SQL on the store's database as the attacker does: another connection, no key (SQLite file or PostgreSQL rows; `?` placeholders). */
async function attack(h: Harness, sql: string, ...params: unknown[]): Promise<void> {
  if (h.location.backend === "postgres") {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${(n += 1)}`);
    await withSchemaClient(h.location.url, h.location.schema, (client) => client.query(text, params));
    return;
  }
  const db = openSqliteDatabase(h.dbPath);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

const database = await testDatabase();
const schemas: string[] = [];
after(() => (database.url === undefined ? undefined : dropSchemas(database.url, schemas)));

/** Submits, approves (as the owner) and runs a consequential write once; the site has seen it once. */
async function finishedWrite(h: Harness): Promise<string> {
  const id = randomUUID();
  const submitted = await h.service.submit(consequentialTask(id));
  assert.ok(submitted.ok && submitted.status === "awaiting_approval");
  const approved = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, decidedBy: "owner (test)", via: "cli" });
  assert.ok(approved.ok, JSON.stringify(approved));
  await h.service.runQueue();
  const done = await h.service.collect(id);
  assert.ok(done.ok && done.receipt?.status === "PASS", JSON.stringify(done));
  assert.equal(site.count("POST", `/write/${id}`), 1);
  return id;
}

// The same attacks on both stores: SQLite rows edited through the file, PostgreSQL rows through SQL.
for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  const where = () => (backend === "postgres" && database.url !== undefined ? { location: freshPostgresLocation(database.url, schemas) } : {});
  describe(`integrity (${backend}): the runner authenticates an operation before it acts on it`, skip === undefined ? {} : { skip }, () => {
    test("a finished consequential write set back to queued is refused as journal_tampered: never executed, nothing reaches the site", async () => {
      const fake = createFakeExecutor({ fixtureOrigin: site.origin });
      const h = await openHarness({ execute: fake.execute, ...where() });
      try {
        const phaseOnly = await finishedWrite(h);
        const rewound = await finishedWrite(h);
        assert.equal(fake.calls.length, 2);
        // The plain edit: only the phase (and what a queued row holds) changes.
        await attack(
          h,
          "UPDATE operations SET phase = 'queued', receipt_status = NULL, receipt_seq = NULL, finished_ms = NULL WHERE operation_id = ?",
          phaseOnly,
        );
        // The careful edit: every column back to what the operation_created event says.
        await attack(
          h,
          "UPDATE operations SET phase = 'queued', revision = 1, attempts = 0, mutation_boundary = 'not_crossed', receipt_status = NULL, receipt_seq = NULL, finished_ms = NULL, run_after_ms = 0 WHERE operation_id = ?",
          rewound,
        );

        const report = await h.service.runQueue();
        assert.deepEqual(report.attempts, [], "nothing was claimed");
        assert.deepEqual(report.refused.map((r) => r.operationId).sort(), [phaseOnly, rewound].sort());
        assert.ok(report.refused.every((r) => /differs from its latest journal event/.test(r.reason)));
        assert.deepEqual(
          h.events.filter((e) => e.kind === "refused").map((e) => e.kind === "refused" && e.code),
          ["journal_tampered", "journal_tampered"],
        );
        // errand run drives one operation by id: refused the same way.
        const only = await h.service.runQueue({ onlyOperationId: rewound });
        assert.deepEqual(only.attempts, []);
        assert.deepEqual(
          only.refused.map((r) => r.operationId),
          [rewound],
        );

        assert.equal(fake.calls.length, 2, "the executor was never called again");
        assert.equal(site.count("POST", `/write/${phaseOnly}`), 1, "the write reached the site exactly once");
        assert.equal(site.count("POST", `/write/${rewound}`), 1, "the write reached the site exactly once");
        for (const id of [phaseOnly, rewound]) {
          const inspected = await h.service.inspect(id);
          assert.ok(!inspected.ok && inspected.code === "journal_tampered");
        }
        const verdict = await h.service.verifyJournal();
        assert.ok(!verdict.ok, "journal verify no longer says intact");
        assert.equal(verdict.fault, "operation_state");
        assert.ok(verdict.operationId === phaseOnly || verdict.operationId === rewound);
      } finally {
        await h.close();
      }
    });

    test("a queued operation whose attempts, risk or boundary were edited is not claimed; an intact one behind it still runs", async () => {
      const fake = createFakeExecutor({ fixtureOrigin: site.origin });
      const h = await openHarness({ execute: fake.execute, ...where() });
      try {
        const edits = [
          "attempts = 5",
          "risk = 'consequential'",
          "mutation_boundary = 'crossed'",
          "max_attempts = 9",
          "cancel_requested_ms = 1",
          "request_digest = 'hmac-sha256:00'",
        ];
        const tampered: string[] = [];
        for (const edit of edits) {
          const id = randomUUID();
          await h.service.submit(readTask(id));
          await attack(h, `UPDATE operations SET ${edit} WHERE operation_id = ?`, id);
          tampered.push(id);
        }
        const intact = randomUUID();
        await h.service.submit(readTask(intact));
        const report = await h.service.runQueue();
        assert.deepEqual(
          report.attempts.map((a) => edits[tampered.indexOf(a.operationId)] ?? "intact"),
          ["intact"],
          "only the intact operation ran",
        );
        assert.deepEqual(report.refused.map((r) => r.operationId).sort(), [...tampered].sort());
        assert.equal(site.count("GET", `/read/${intact}`), 1);
        for (const id of tampered) assert.equal(site.count("GET", `/read/${id}`), 0);
      } finally {
        await h.close();
      }
    });

    test("a row edited while its write runs cannot make it a retry: the result is refused, recovery refuses it, the write is sent once", async () => {
      const clock = manualClock();
      const harness: { current?: Harness } = {};
      const sent: string[] = [];
      const execute: ExecuteTask = async (task: Task, context: AttemptContext): Promise<AttemptOutcome> => {
        await context.beforeMutationBoundary();
        await fetch(`${site.origin}/write/${task.operationId}`, { method: "POST", body: "x" });
        sent.push(task.operationId);
        // The attacker makes the running write look like a read_only operation before its boundary.
        await attack(
          harness.current as Harness,
          "UPDATE operations SET risk = 'read_only', mutation_boundary = 'not_crossed' WHERE operation_id = ?",
          task.operationId,
        );
        return {
          receipt: {
            receiptVersion: "errand.receipt.v1",
            status: "FAIL",
            operationId: task.operationId,
            requestDigest: context.requestDigest,
            risk: task.risk,
            provider: "local",
            finalUrl: untrusted(task.target.url),
            checks: [],
            steps: [],
            error: { code: "step_failed", message: "fake", step: null },
            startedAt: new Date(0).toISOString(),
            durationMs: 1,
            attempts: context.attempt,
            network: emptyNetworkEvidence(),
            mutationBoundary: "crossed",
            evidenceRetention: task.evidenceRetention,
            fallback: [],
          },
          ephemeral: { ephemeral: true, outputs: {} },
        };
      };
      const h = await openHarness({ config: REVERSIBLE_WRITES_UNATTENDED, execute, clock: clock.now, ...where() });
      harness.current = h;
      try {
        const id = randomUUID();
        await h.service.submit(writeTask(id));
        const first = await h.service.runQueue();
        assert.deepEqual(
          first.attempts.map((a) => a.outcome),
          ["lease_lost"],
          "the result was not applied to the edited row",
        );
        assert.deepEqual(
          first.refused.map((r) => r.operationId),
          [id],
        );
        clock.advance(h.config.leaseMs + 1);
        const later = await h.service.runQueue();
        assert.deepEqual(later.recovered, [], "recovery does not resolve an edited row");
        assert.deepEqual(later.attempts, []);
        assert.deepEqual(
          later.refused.map((r) => r.operationId),
          [id],
        );
        assert.deepEqual(sent, [id], "the write was dispatched once");
        assert.equal(site.count("POST", `/write/${id}`), 1);
      } finally {
        await h.close();
      }
    });

    test("an approval forged in the database is not honoured: a waiting write set to queued, or given an approved one's chain end, never reaches the site", async () => {
      const fake = createFakeExecutor({ fixtureOrigin: site.origin });
      const h = await openHarness({ execute: fake.execute, ...where() });
      try {
        const [forged, copied, approved] = [randomUUID(), randomUUID(), randomUUID()];
        const digests = new Map<string, string>();
        for (const id of [forged, copied, approved]) {
          const submitted = await h.service.submit(consequentialTask(id));
          assert.ok(submitted.ok && submitted.status === "awaiting_approval");
          digests.set(id, submitted.handle.requestDigest);
        }
        const decided = await h.service.decideApproval(approved, {
          approve: true,
          requestDigest: digests.get(approved) ?? "",
          decidedBy: "owner (test)",
          via: "cli",
        });
        assert.ok(decided.ok);
        await attack(h, "UPDATE operations SET phase = 'queued', run_after_ms = 0, approval_expires_ms = NULL WHERE operation_id = ?", forged);
        await attack(
          h,
          `UPDATE operations SET phase = 'queued', run_after_ms = 0, approval_expires_ms = NULL,
             revision = (SELECT o.revision FROM operations o WHERE o.operation_id = ?), chain_seq = (SELECT o.chain_seq FROM operations o WHERE o.operation_id = ?),
             chain_mac = (SELECT o.chain_mac FROM operations o WHERE o.operation_id = ?) WHERE operation_id = ?`,
          approved,
          approved,
          approved,
          copied,
        );
        const report = await h.service.runQueue();
        assert.deepEqual(report.refused.map((r) => r.operationId).sort(), [forged, copied].sort());
        assert.equal(site.count("POST", `/write/${forged}`), 0, "a forged approval sends nothing");
        assert.equal(site.count("POST", `/write/${copied}`), 0, "a copied approval sends nothing");
        assert.equal(site.count("POST", `/write/${approved}`), 1, "the owner's approval ran once");
        for (const id of [forged, copied]) {
          const answer = await h.service.decideApproval(id, { approve: true, requestDigest: digests.get(id) ?? "", decidedBy: "attacker", via: "cli" });
          assert.ok(!answer.ok && answer.code === "journal_tampered", JSON.stringify(answer));
        }
        const verdict = await h.service.verifyJournal();
        assert.ok(!verdict.ok);
      } finally {
        await h.close();
      }
    });

    test("cancel and approve refuse an operation whose row was edited, and change nothing", async () => {
      const fake = createFakeExecutor({ fixtureOrigin: site.origin });
      const h = await openHarness({ execute: fake.execute, ...where() });
      try {
        const id = await finishedWrite(h);
        const before = await h.store.readJournalHead();
        await attack(
          h,
          "UPDATE operations SET phase = 'awaiting_approval', approval_expires_ms = 9999999999999, receipt_status = NULL WHERE operation_id = ?",
          id,
        );
        const row = (await h.store.readOperation(id)) as { kind: "live"; operation: { requestDigest: string } };
        const approved = await h.service.decideApproval(id, { approve: true, requestDigest: row.operation.requestDigest, decidedBy: "attacker", via: "cli" });
        assert.ok(!approved.ok && approved.code === "journal_tampered", JSON.stringify(approved));
        const cancelled = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
        assert.ok(!cancelled.ok && cancelled.code === "journal_tampered", JSON.stringify(cancelled));
        assert.equal(await h.service.expireApprovals(), 0, "an edited row is not ended either");
        assert.equal((await h.store.readJournalHead())?.seq, before?.seq, "nothing was journaled");
        await h.service.runQueue();
        assert.equal(site.count("POST", `/write/${id}`), 1);
      } finally {
        await h.close();
      }
    });
  });
}

describe("integrity: the attempt history comes from the journal", () => {
  test("forged attempts rows change nothing inspect shows; an altered or removed attempt event is refused", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "fail-once"));
      await h.service.runQueue();
      const honest = await h.service.inspect(id);
      assert.ok(honest.ok && "attempts" in honest);
      assert.deepEqual(
        honest.attempts.map((a) => [a.attempt, a.runnerId, a.outcome, a.errorCode, a.provider]),
        [
          [1, "test-runner", "FAIL", "step_failed", "local"],
          [2, "test-runner", "PASS", null, "local"],
        ],
      );
      assert.ok(honest.attempts.every((a) => a.endedMs !== null && a.endedMs >= a.startedMs));

      // The attempts table is not what inspect reads: forged rows there show nowhere.
      await attack(h, "INSERT INTO attempts (operation_id, attempt, runner_id, started_ms, ended_ms, outcome) VALUES (?, 3, 'forged', 0, 1, 'PASS')", id);
      await attack(h, "UPDATE attempts SET outcome = 'PASS', runner_id = 'forged' WHERE operation_id = ?", id);
      const again = await h.service.inspect(id);
      assert.ok(again.ok && "attempts" in again);
      assert.deepEqual(again.attempts, honest.attempts);

      // Altering the event that says how attempt 1 ended breaks its MAC.
      const db = openSqliteDatabase(h.dbPath);
      const requeued = db.prepare("SELECT seq, body FROM journal_events WHERE operation_id = ? AND type = 'operation_requeued'").get(id) as {
        seq: number;
        body: string;
      };
      db.prepare("UPDATE journal_events SET body = ? WHERE seq = ?").run(
        requeued.body.replace('"attemptOutcome":"FAIL"', '"attemptOutcome":"PASS"'),
        requeued.seq,
      );
      db.close();
      const altered = await h.service.inspect(id);
      assert.ok(!altered.ok && altered.code === "journal_tampered", JSON.stringify(altered));

      // Removing it instead leaves a gap in the operation's revisions.
      await attack(h, "DELETE FROM journal_events WHERE seq = ?", requeued.seq);
      const removed = await h.service.inspect(id);
      assert.ok(!removed.ok && removed.code === "journal_tampered", JSON.stringify(removed));
      assert.match(removed.message, /revision/);
    } finally {
      await h.close();
    }
  });

  test("an attempt lost to an expired lease is shown as lost, from its journal event", async () => {
    const clock = manualClock();
    const h = await openHarness({ clock: clock.now });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const claimed = await h.store.claimNext("crashed-runner", h.config.leaseMs);
      assert.equal(claimed?.operation.operationId, id);
      clock.advance(h.config.leaseMs + 1);
      const runner = await h.reopen(createFakeExecutor().execute);
      await runner.service.runQueue();
      const inspected = await h.service.inspect(id);
      assert.ok(inspected.ok && "attempts" in inspected);
      assert.deepEqual(
        inspected.attempts.map((a) => [a.attempt, a.runnerId, a.outcome, a.errorCode]),
        [
          [1, "crashed-runner", "lost", "lease_expired"],
          [2, "test-runner", "PASS", null],
        ],
      );
    } finally {
      await h.close();
    }
  });
});
