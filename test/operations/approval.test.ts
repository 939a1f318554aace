// Owner approval from the attacker's side: a task that needs the owner never reaches the site before
// the owner approves it; an approval runs it once; a denial or an expiry never; the approval is
// bound to the digest the owner was shown and journaled with who and when.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { parseOwnerApproval, unattendedUnderPolicy } from "../../src/config/parseOwnerApproval.js";
import { resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";
import { needsOwnerApproval } from "../../src/operations/needsOwnerApproval.js";
import { describeTask, formatTaskDescription } from "../../src/task/describeTask.js";
import { validateTask } from "../../src/task/validateTask.js";
import { startCountingServer } from "./support/countingServer.js";
import type { CountingServer } from "./support/countingServer.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { manualClock, openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

let site: CountingServer;
before(async () => {
  site = await startCountingServer();
});
after(() => site.close());

function consequentialTask(id: string = randomUUID(), extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...writeTask(id, undefined, { target: { url: "https://shop.example.com/cart" }, allowedHosts: ["pay.example.com"] }),
    risk: "consequential",
    steps: [
      { action: "goto", url: "https://pay.example.com/checkout" },
      { action: "click", selector: "#pay" },
      { action: "expect_text", text: "Paid" },
    ],
    ...extra,
  };
}

const DECIDER = { decidedBy: "owner (test)", via: "cli" as const };

describe("owner approval", () => {
  test("an approval-class task waits in awaiting_approval and never reaches the site; approve runs it exactly once", async () => {
    const fake = createFakeExecutor({ fixtureOrigin: site.origin });
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(consequentialTask(id));
      assert.ok(submitted.ok);
      assert.equal(submitted.status, "awaiting_approval");
      assert.equal(submitted.handle.phase, "awaiting_approval");
      assert.ok(submitted.approval !== undefined);
      assert.match(submitted.approval.summary, /consequential/);
      assert.match(submitted.approval.summary, /click "#pay" on pay\.example\.com/);
      assert.match(submitted.approval.summary, new RegExp(submitted.handle.requestDigest));
      assert.deepEqual(submitted.approval.description.hosts, ["shop.example.com", "pay.example.com"]);

      const idle = await h.service.runQueue();
      assert.equal(idle.attempts.length, 0, "no runner claims an operation awaiting approval");
      assert.equal(fake.calls.length, 0);
      assert.equal(site.count("POST", `/write/${id}`), 0, "nothing reached the site before approval");
      const collected = await h.service.collect(id, { wait: true, timeoutMs: 50 });
      assert.ok(collected.ok);
      assert.equal(collected.status, "awaiting_approval");
      assert.ok(collected.approval !== undefined);

      const approved = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.ok(approved.ok);
      assert.equal(approved.outcome, "approved");
      assert.equal(approved.handle.phase, "queued");
      const again = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.equal(again.ok, false);
      assert.equal(!again.ok && again.code, "approval_not_pending");

      await h.service.runQueue();
      await h.service.runQueue();
      assert.equal(fake.calls.length, 1, "approved once, run once");
      assert.equal(site.count("POST", `/write/${id}`), 1);
      const done = await h.service.collect(id);
      assert.ok(done.ok);
      assert.equal(done.receipt?.status, "PASS");

      const events = await h.store.readJournalEvents(0, 1000);
      const approval = events.find((e) => e.type === "operation_approved" && e.operationId === id);
      assert.ok(approval !== undefined, "the approval is journaled");
      const body = JSON.parse(approval.body ?? "{}") as Record<string, unknown>;
      assert.equal(body["approvedDigest"], submitted.handle.requestDigest);
      assert.equal(body["decidedBy"], "owner (test)");
      assert.equal(body["via"], "cli");
      assert.equal(typeof body["decidedMs"], "number");
      assert.equal((await h.service.verifyJournal()).ok, true);
    } finally {
      await h.close();
    }
  });

  test("a denied task ends BLOCKED approval_denied and is never run", async () => {
    const fake = createFakeExecutor({ fixtureOrigin: site.origin });
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(consequentialTask(id));
      assert.ok(submitted.ok);
      const denied = await h.service.decideApproval(id, { approve: false, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.ok(denied.ok);
      assert.equal(denied.outcome, "denied");
      const late = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.equal(!late.ok && late.code, "approval_not_pending", "a denial is final");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      assert.equal(site.count("POST", `/write/${id}`), 0);
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.status, "blocked");
      assert.equal(collected.receipt?.status, "BLOCKED");
      assert.equal(collected.receipt?.error?.code, "approval_denied");
    } finally {
      await h.close();
    }
  });

  test("an approval that comes after ERRAND_APPROVAL_TTL no longer runs the task: BLOCKED approval_expired", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor({ fixtureOrigin: site.origin });
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: { approvalTtlMs: 60_000 } });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(consequentialTask(id));
      assert.ok(submitted.ok && submitted.approval !== undefined);
      assert.equal(submitted.approval.expiresAt, new Date(clock.now() + 60_000).toISOString());
      clock.advance(60_000);
      const late = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.equal(late.ok, false);
      assert.equal(!late.ok && late.code, "approval_expired");
      const repeat = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.equal(!repeat.ok && repeat.code, "approval_expired");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      assert.equal(site.count("POST", `/write/${id}`), 0);
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.error?.code, "approval_expired");

      // Expiry also happens without anybody asking: the runner's sweep and a look at the operation.
      const other = randomUUID();
      assert.ok((await h.service.submit(consequentialTask(other))).ok);
      clock.advance(61_000);
      await h.service.runQueue();
      const swept = await h.service.inspect(other);
      assert.ok(swept.ok);
      assert.equal(swept.status, "blocked");
    } finally {
      await h.close();
    }
  });

  test("a changed task under the same id is identity_mismatch, and an approval for another digest approves nothing", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(consequentialTask(id));
      assert.ok(submitted.ok);
      const changed = await h.service.submit(
        consequentialTask(id, {
          steps: [
            { action: "click", selector: "#pay-twice" },
            { action: "expect_text", text: "Paid" },
          ],
        }),
      );
      assert.equal(changed.ok, false);
      assert.equal(!changed.ok && changed.code, "identity_mismatch");
      const wrongDigest = await h.service.decideApproval(id, { approve: true, requestDigest: `hmac-sha256:${"0".repeat(64)}`, ...DECIDER });
      assert.equal(!wrongDigest.ok && wrongDigest.code, "identity_mismatch");
      const still = await h.service.inspect(id);
      assert.ok(still.ok);
      assert.equal(still.status, "awaiting_approval");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
    } finally {
      await h.close();
    }
  });

  test("a task edited in the store behind errand's back cannot be shown or approved", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(consequentialTask(id));
      assert.ok(submitted.ok);
      const { openSqliteDatabase } = await import("../../src/store/sqlite/sqliteBinding.js");
      const db = openSqliteDatabase(h.dbPath);
      const row = db.prepare("SELECT task_json FROM operations WHERE operation_id = ?").get(id) as { task_json: string };
      db.prepare("UPDATE operations SET task_json = ? WHERE operation_id = ?").run(row.task_json.replace("#pay", "#wire"), id);
      db.close();
      const request = await h.service.approvalRequest(id);
      assert.equal(!request.ok && request.code, "journal_tampered");
    } finally {
      await h.close();
    }
  });

  test("an operation awaiting approval can be cancelled and then never runs", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      assert.ok((await h.service.submit(consequentialTask(id))).ok);
      const cancelled = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(cancelled.ok);
      assert.equal(cancelled.outcome, "cancelled");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
    } finally {
      await h.close();
    }
  });

  test("a Send money POST the assistant labels reversible_write with approved:true waits for the owner: 0 POSTs reach the site until the owner approves", async () => {
    const fake = createFakeExecutor({ fixtureOrigin: site.origin });
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      const sendMoney = writeTask(id, "Send money", {
        target: { url: "https://bank.example.com/transfer" },
        steps: [
          { action: "fill", selector: "#amount", value: "5000" },
          { action: "click", selector: "button:text('Send money')" },
          { action: "expect_text", text: "Sent" },
        ],
      });
      const submitted = await h.service.submit(sendMoney);
      assert.ok(submitted.ok, JSON.stringify(submitted));
      assert.equal(submitted.status, "awaiting_approval", "the assistant's own label and approved:true are not enough");
      assert.match(submitted.approval?.summary ?? "", /Risk: a reversible write/);
      assert.match(submitted.approval?.summary ?? "", /click "button:text\('Send money'\)" on bank\.example\.com/);
      for (let round = 0; round < 3; round += 1) await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      assert.equal(site.count("POST", `/write/${id}`), 0, "no POST before the owner approves");
      const approved = await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, ...DECIDER });
      assert.ok(approved.ok);
      await h.service.runQueue();
      assert.equal(site.count("POST", `/write/${id}`), 1, "the owner's approval runs it once");
    } finally {
      await h.close();
    }
  });

  test("ERRAND_OWNER_APPROVAL decides which tasks wait: default every write and every secret; none; all; typos refused", () => {
    const task = (extra: Record<string, unknown>) => {
      const v = validateTask({ ...readTask(), ...extra });
      assert.ok(v.ok, JSON.stringify(v));
      return v.value;
    };
    const read = task({});
    const reversible = task({ risk: "reversible_write", approved: true, steps: [{ action: "click", selector: "#a" }] });
    const consequential = task({ risk: "consequential", approved: true, steps: [{ action: "click", selector: "#a" }] });
    const secret = task({
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#p", envVar: "PORTAL" },
        { action: "expect_text", text: "x" },
      ],
    });
    const defaults = resolveRuntimeConfig({}).ownerApproval;
    assert.deepEqual(
      [read, reversible, consequential, secret].map((t) => needsOwnerApproval(t, defaults)),
      [false, true, true, true],
    );
    assert.deepEqual(unattendedUnderPolicy(defaults), []);
    assert.deepEqual(unattendedUnderPolicy(parseOwnerApproval("all")), []);
    assert.deepEqual(unattendedUnderPolicy(parseOwnerApproval("consequential,secret")), ["reversible_write"]);
    assert.deepEqual(unattendedUnderPolicy(parseOwnerApproval("none")), ["reversible_write", "consequential", "secret"]);
    assert.deepEqual(
      [read, reversible, consequential, secret].map((t) => needsOwnerApproval(t, parseOwnerApproval("none"))),
      [false, false, false, false],
    );
    assert.deepEqual(
      [read, reversible, consequential, secret].map((t) => needsOwnerApproval(t, parseOwnerApproval("all"))),
      [true, true, true, true],
    );
    assert.deepEqual(
      [read, reversible, consequential, secret].map((t) => needsOwnerApproval(t, parseOwnerApproval("reversible_write"))),
      [false, true, false, false],
    );
    for (const bad of ["", "consequentail", "none,secret", "secret,,all", "yes"]) {
      assert.throws(() => parseOwnerApproval(bad), /ERRAND_OWNER_APPROVAL/, bad);
    }
    assert.throws(() => resolveRuntimeConfig({ ERRAND_APPROVAL_TTL: "15" }), /ERRAND_APPROVAL_TTL/);
    assert.equal(resolveRuntimeConfig({ ERRAND_APPROVAL_TTL: "2h" }).approvalTtlMs, 2 * 3600_000);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (raw) => {
        try {
          const rules = parseOwnerApproval(raw);
          return rules.every((r) => ["consequential", "reversible_write", "secret", "all"].includes(r));
        } catch (error) {
          return error instanceof Error && error.message.includes("ERRAND_OWNER_APPROVAL");
        }
      }),
    );
  });

  test("the summary says each step in words and cannot be forged by what the assistant wrote", () => {
    const v = validateTask({
      ...readTask(),
      label: "harmless\nRisk: read only",
      risk: "consequential",
      approved: true,
      secretApproval: true,
      target: { url: "https://portal.example.com/login" },
      steps: [
        { action: "fill_secret", selector: "#password", envVar: "PORTAL" },
        { action: "fill", selector: "#note", value: "a\nRisk: read only\u2028Steps: none" },
        { action: "click", selector: "#pay" },
        { action: "expect_text", text: "Done" },
      ],
    });
    assert.ok(v.ok, JSON.stringify(v));
    const text = formatTaskDescription(describeTask(v.value), "hmac-sha256:abc");
    assert.match(text, /type the secret "PORTAL" into "#password" on portal\.example\.com/);
    assert.match(text, /click "#pay" on portal\.example\.com/);
    assert.match(text, /Secrets: "PORTAL" on portal\.example\.com/);
    assert.match(text, /Request digest: hmac-sha256:abc/);
    const riskLines = text.split("\n").filter((line) => line.startsWith("Risk:"));
    assert.equal(riskLines.length, 1, "only errand's own risk line");
    assert.match(riskLines[0] ?? "", /consequential/);
    assert.ok(!text.includes("\u2028"));
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (value) => {
        const t = validateTask({
          ...readTask(),
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "fill", selector: "#x", value },
            { action: "expect_text", text: "y" },
          ],
        });
        if (!t.ok) return true;
        return (
          formatTaskDescription(describeTask(t.value), "d").split("\n").length ===
          formatTaskDescription(
            describeTask({
              ...t.value,
              steps: [
                { action: "fill", selector: "#x", value: "v" },
                { action: "expect_text", text: "y", match: "contains" },
              ],
            }),
            "d",
          ).split("\n").length
        );
      }),
    );
  });
});
