// Refusals that are errand's fault do not burn the operationId: the same request submitted again
// runs; refusals caused by the task stay final.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

describe("resubmitting after an environment refusal", () => {
  test("BLOCKED configuration_error before any browser opened runs again when the same request is submitted again, and PASSes once the environment is fixed", async () => {
    let fixed = false;
    const fake = createFakeExecutor({ configFixed: () => fixed });
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const task = readTask(id, "config-once");
      await h.service.submit(task);
      await h.service.runQueue();
      const refused = await h.service.collect(id);
      assert.ok(refused.ok);
      assert.equal(refused.receipt?.status, "BLOCKED");
      assert.equal(refused.receipt?.error?.code, "configuration_error");

      fixed = true;
      const again = await h.service.submit(task);
      assert.ok(again.ok);
      assert.equal(again.created, false);
      assert.equal(again.reopened, true);
      assert.equal(again.status, "pending");
      await h.service.runQueue();
      const ran = await h.service.collect(id);
      assert.ok(ran.ok);
      assert.equal(ran.receipt?.status, "PASS");
      assert.equal(ran.receipt?.attempts, 2);
      assert.equal((await h.service.verifyJournal()).ok, true, "the reopened operation's history still verifies");

      const repeat = await h.service.submit(task);
      assert.ok(repeat.ok);
      assert.equal(repeat.reopened, undefined, "a PASS is never reopened");
      assert.equal(repeat.status, "completed");
    } finally {
      await h.close();
    }
  });

  test("a refusal caused by the task, a FAIL and a changed request stay as they are", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const taskRefused = readTask(randomUUID(), "task-refused");
      const failed = readTask(randomUUID(), "fail");
      const write = writeTask(randomUUID(), "write-fail-before");
      for (const t of [taskRefused, failed, write]) await h.service.submit(t);
      await h.service.runQueue();
      const calls = fake.calls.length;
      for (const t of [taskRefused, failed, write]) {
        const again = await h.service.submit(t);
        assert.ok(again.ok);
        assert.equal(again.reopened, undefined, String(t["label"]));
        assert.notEqual(again.status, "pending");
      }
      await h.service.runQueue();
      assert.equal(fake.calls.length, calls, "nothing ran again");
    } finally {
      await h.close();
    }
  });
});
