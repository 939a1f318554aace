// The per-provider circuit breaker: the pure state machine, its persistence with compare-and-set,
// and its effect on operations (open after 3 provider failures, 15 min cooldown, one half-open probe).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { MINUTE } from "../../src/config/units.js";
import { admit, recordOutcome } from "../../src/runner/circuitBreaker.js";
import type { BreakerPolicy } from "../../src/runner/circuitBreaker.js";
import type { BreakerRecord } from "../../src/store/Store.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import { readTask } from "../operations/support/tasks.js";

const policy: BreakerPolicy = { threshold: 3, cooldownMs: 15 * MINUTE, probeTimeoutMs: 2 * MINUTE };
const closed: BreakerRecord = { provider: "local", state: "CLOSED", failures: 0, openUntilMs: null, probeToken: null, probeExpiresMs: null, revision: 0, updatedMs: 0 };

describe("circuit breaker state machine", () => {
  test("CLOSED counts consecutive provider failures and opens at the threshold for the cooldown", () => {
    let record = closed;
    for (let i = 1; i <= 2; i += 1) {
      record = recordOutcome(record, "provider_failure", 1000, policy, null) ?? record;
      assert.equal(record.state, "CLOSED");
      assert.equal(record.failures, i);
    }
    const opened = recordOutcome(record, "provider_failure", 1000, policy, null);
    assert.equal(opened?.state, "OPEN");
    assert.equal(opened?.openUntilMs, 1000 + 15 * MINUTE);
  });

  test("a success resets the count; a neutral outcome (configuration error) leaves it", () => {
    const two = { ...closed, failures: 2 };
    assert.equal(recordOutcome(two, "neutral", 0, policy, null), null);
    assert.equal(recordOutcome(two, "success", 0, policy, null)?.failures, 0);
    assert.equal(recordOutcome(closed, "success", 0, policy, null), null, "nothing to write");
  });

  test("OPEN refuses until the cooldown ends, then admits exactly one probe as HALF_OPEN", () => {
    const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 10_000 };
    assert.deepEqual(admit(open, 9_999, policy, "p1"), { kind: "refuse", retryAtMs: 10_000 });
    const probe = admit(open, 10_000, policy, "p1");
    assert.equal(probe.kind, "probe");
    assert.ok(probe.kind === "probe");
    assert.equal(probe.next.state, "HALF_OPEN");
    assert.equal(probe.next.probeToken, "p1");
    assert.deepEqual(admit(probe.next, 10_001, policy, "p2"), { kind: "refuse", retryAtMs: null }, "a second probe is refused while the first is live");
    const replaced = admit(probe.next, 10_000 + policy.probeTimeoutMs, policy, "p3");
    assert.ok(replaced.kind === "probe", "an abandoned probe is replaced");
    assert.equal(replaced.next.probeToken, "p3");
  });

  test("HALF_OPEN closes on the probe's success, reopens on its failure, and releases it on a neutral outcome", () => {
    const half: BreakerRecord = { ...closed, state: "HALF_OPEN", failures: 3, openUntilMs: 0, probeToken: "p", probeExpiresMs: 99_999 };
    assert.equal(recordOutcome(half, "success", 5, policy, "p")?.state, "CLOSED");
    const reopened = recordOutcome(half, "provider_failure", 5, policy, "p");
    assert.equal(reopened?.state, "OPEN");
    assert.equal(reopened?.openUntilMs, 5 + 15 * MINUTE);
    const released = recordOutcome(half, "neutral", 5, policy, "p");
    assert.equal(released?.state, "OPEN");
    assert.equal(released?.openUntilMs, 5, "the next admit may probe at once");
    assert.equal(recordOutcome(half, "success", 5, policy, "someone-else"), null, "only the probe's own outcome counts");
    assert.equal(recordOutcome(half, "success", 5, policy, null), null);
  });

  test("outcomes of attempts admitted before the circuit opened do not move an OPEN circuit", () => {
    const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 10 };
    for (const outcome of ["success", "provider_failure", "neutral"] as const) assert.equal(recordOutcome(open, outcome, 0, policy, null), null);
  });
});

describe("circuit breaker in the runner", () => {
  test("three provider failures open the circuit; later operations are BLOCKED circuit_open without running; after 15 min one probe closes it", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = openHarness({ execute: fake.execute, clock: clock.now, config: { maxAttempts: 1 } });
    try {
      for (let i = 0; i < 3; i += 1) await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      const [breaker] = await h.store.listBreakers();
      assert.equal(breaker?.state, "OPEN");
      assert.equal(breaker?.openUntilMs, clock.now() + 15 * MINUTE);

      const refused = randomUUID();
      await h.service.submit(readTask(refused));
      await h.service.runQueue();
      assert.equal(fake.calls.length, 3, "nothing ran while the circuit was open");
      const blocked = await h.service.collect(refused);
      assert.ok(blocked.ok);
      assert.equal(blocked.status, "blocked");
      assert.equal(blocked.receipt?.error?.code, "circuit_open");

      clock.advance(15 * MINUTE);
      const probe = randomUUID();
      const waiting = randomUUID();
      await h.service.submit(readTask(probe));
      await h.service.submit(readTask(waiting));
      await h.service.runQueue({ max: 1 });
      assert.equal((await h.store.readBreaker("local")).state, "CLOSED", "the probe succeeded");
      await h.service.runQueue();
      const after = await h.service.collect(waiting);
      assert.ok(after.ok);
      assert.equal(after.receipt?.status, "PASS");
      const changes = (await h.store.readJournalEvents(0, 1000)).filter((e) => e.type === "breaker_changed").map((e) => JSON.parse(e.body ?? "{}") as { from: string; to: string });
      assert.deepEqual(changes.map((c) => `${c.from}->${c.to}`), ["CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED"]);
    } finally {
      await h.close();
    }
  });

  test("a failed probe reopens the circuit for another cooldown", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = openHarness({ execute: fake.execute, clock: clock.now, config: { maxAttempts: 1 } });
    try {
      for (let i = 0; i < 3; i += 1) await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      clock.advance(15 * MINUTE);
      await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      const breaker = await h.store.readBreaker("local");
      assert.equal(breaker.state, "OPEN");
      assert.equal(breaker.openUntilMs, clock.now() + 15 * MINUTE);
    } finally {
      await h.close();
    }
  });

  test("configuration errors (BLOCKED) never open the circuit", async () => {
    const fake = createFakeExecutor();
    const h = openHarness({ execute: fake.execute });
    try {
      for (let i = 0; i < 5; i += 1) await h.service.submit(readTask(randomUUID(), "config"));
      await h.service.runQueue();
      assert.equal((await h.store.readBreaker("local")).state, "CLOSED");
      assert.equal(fake.calls.length, 5);
    } finally {
      await h.close();
    }
  });

  test("the breaker row is compare-and-set: of two runners racing for the half-open probe, one wins", async () => {
    const h = openHarness();
    const other = h.reopen();
    try {
      const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 0 };
      assert.equal(await h.store.writeBreaker(open, 0), true);
      const seen = await h.store.readBreaker("local");
      const a = admit(seen, Date.now(), policy, "a");
      const b = admit(seen, Date.now(), policy, "b");
      assert.ok(a.kind === "probe" && b.kind === "probe");
      const results = await Promise.all([h.store.writeBreaker(a.next, seen.revision), other.store.writeBreaker(b.next, seen.revision)]);
      assert.deepEqual(results.sort(), [false, true]);
    } finally {
      await h.close();
    }
  });
});
