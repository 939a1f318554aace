// submit: validation before anything is stored, idempotency by operationId + digest, identity mismatch, quota.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

describe("submit", () => {
  test("same operationId and same task returns the same operation and it executes only once", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const first = await h.service.submit(readTask(id));
      assert.ok(first.ok);
      assert.equal(first.created, true);
      assert.equal(first.status, "pending");
      assert.equal(first.handle.phase, "queued");
      assert.equal(first.handle.revision, 1);

      const again = await h.service.submit(readTask(id));
      assert.ok(again.ok);
      assert.equal(again.created, false);
      assert.deepEqual(again.handle, first.handle);

      await h.service.runQueue();
      const afterRun = await h.service.submit(readTask(id));
      assert.ok(afterRun.ok);
      assert.equal(afterRun.created, false);
      assert.equal(afterRun.status, "completed");
      assert.equal(afterRun.handle.requestDigest, first.handle.requestDigest);
      await h.service.runQueue();
      assert.equal(fake.calls.length, 1, "the executor ran exactly once");
    } finally {
      await h.close();
    }
  });

  test("equivalent spellings of a task are the same request (digest of the normalized task)", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      const first = await h.service.submit(readTask(id, undefined, { allowedHosts: ["b.example.com", "a.example.com"] }));
      const second = await h.service.submit({
        ...readTask(id.toUpperCase(), undefined, { allowedHosts: ["A.example.com", "b.example.com", "a.example.com"] }),
        evidenceRetention: "minimal",
      });
      assert.ok(first.ok && second.ok);
      assert.equal(second.created, false);
      assert.equal(second.handle.requestDigest, first.handle.requestDigest);
    } finally {
      await h.close();
    }
  });

  test("same operationId with a different task is identity_mismatch and creates nothing", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      const first = await h.service.submit(readTask(id));
      assert.ok(first.ok);
      const changed = await h.service.submit(readTask(id, "another label"));
      assert.equal(changed.ok, false);
      assert.ok(!changed.ok);
      assert.equal(changed.code, "identity_mismatch");
      assert.deepEqual(changed.handle, first.handle, "the mismatch names the existing operation");
      const status = await h.service.status();
      assert.equal(status.store.phases.queued, 1);
    } finally {
      await h.close();
    }
  });

  test("an invalid task is refused with every problem and nothing is stored", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      const refused = await h.service.submit({ ...readTask(id), steps: [], risk: "sometimes" });
      assert.ok(!refused.ok);
      assert.ok((refused.problems?.length ?? 0) >= 2);
      assert.deepEqual(refused.problems?.map((p) => p.path).sort(), ["/risk", "/steps"]);
      const inspected = await h.service.inspect(id);
      assert.ok(!inspected.ok);
      assert.equal(inspected.code, "operation_not_found");
      assert.equal((await h.service.status()).journal.seq, 0, "no journal event for a refused task");
    } finally {
      await h.close();
    }
  });

  test("an unapproved write is refused before it becomes an operation, so it can be approved under the same id", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      const unapproved = await h.service.submit({ ...writeTask(id), approved: false });
      assert.ok(!unapproved.ok);
      assert.equal(unapproved.code, "approval_required");
      const approved = await h.service.submit(writeTask(id));
      assert.ok(approved.ok);
      assert.equal(approved.created, true);
    } finally {
      await h.close();
    }
  });

  test("submit answers journal_quota_exceeded at the quota without deleting anything; a resubmit of an existing id still works", async () => {
    const h = await openHarness({ config: { journalQuotaBytes: 4096 } });
    try {
      const accepted: string[] = [];
      let refusal: Awaited<ReturnType<typeof h.service.submit>> | undefined;
      for (let i = 0; i < 20; i += 1) {
        const id = randomUUID();
        const result = await h.service.submit(readTask(id));
        if (!result.ok) {
          refusal = result;
          break;
        }
        accepted.push(id);
      }
      assert.ok(refusal !== undefined && !refusal.ok, "the quota was reached");
      assert.equal(refusal.code, "journal_quota_exceeded");
      assert.ok(accepted.length >= 2);
      const status = await h.service.status();
      assert.ok(status.journal.storedBytes <= 4096);
      assert.equal(status.store.phases.queued, accepted.length, "nothing was deleted");
      const resubmit = await h.service.submit(readTask(accepted[0]));
      assert.ok(resubmit.ok, "an existing operation is still answered");
      assert.equal(resubmit.created, false);
    } finally {
      await h.close();
    }
  });
});
