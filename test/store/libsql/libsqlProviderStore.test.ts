// The ProviderStore on libSQL (@libsql/client, file:): slots capped across two connections, budgets
// counting booked usage and live reservations, a crashed holder's slot booked once at its
// reservation, usage booked only for a slot still held, smoke results and credential refusals
// journaled, and a back-off that never shortens.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { MINUTE, SECOND } from "../../../src/config/units.js";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";
import { openLibsqlProviderStore } from "../../../src/store/libsql/openLibsqlProviderStore.js";
import { openLibsqlStore } from "../../../src/store/libsql/openLibsqlStore.js";
import type { ProviderStore, SlotRequest, UsageEntry } from "../../../src/store/ProviderStore.js";
import type { Store } from "../../../src/store/Store.js";

const T0 = Date.UTC(2026, 0, 1);
const slot = (overrides: Partial<SlotRequest> = {}): SlotRequest => ({
  provider: "browserless",
  holder: "test",
  operationId: null,
  cap: 2,
  expiresMs: T0 + MINUTE,
  reserve: 1,
  unit: "browserless_unit",
  budget: { limit: 1000, sinceMs: 0 },
  ...overrides,
});
const usage = (amount: number): UsageEntry => ({
  provider: "browserless",
  operationId: null,
  attempt: 1,
  sessionMs: 31 * SECOND,
  unit: "browserless_unit",
  amount,
  usd: null,
  estimate: false,
});

async function withProviders(body: (s: { store: Store; a: ProviderStore; b: ProviderStore; clock: { now: number } }) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-providers-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const sealer = createJournalSealer(randomBytes(32));
  const clock = { now: T0 };
  const options = { where: url, sealer, clock: () => clock.now };
  const store = await openLibsqlStore({ client: await openLibsqlTestClient({ url }), ...options });
  const a = await openLibsqlProviderStore({ client: await openLibsqlTestClient({ url }), ...options });
  const b = await openLibsqlProviderStore({ client: await openLibsqlTestClient({ url }), ...options });
  try {
    await body({ store, a, b, clock });
    const verdict = await verifyJournal(store, sealer);
    assert.ok(verdict.ok, JSON.stringify(verdict));
  } finally {
    await Promise.all([a.close(), b.close(), store.close()]);
    rmSync(home, { recursive: true, force: true });
  }
}

test("libsql provider store: slots are capped across connections; a released slot books its usage once and is taken again", () =>
  withProviders(async ({ a, b }) => {
    const grants = await Promise.all([a, b, a, b].map((store) => store.acquireSlot(slot())));
    const acquired = grants.filter((g) => g.kind === "acquired");
    assert.equal(acquired.length, 2, JSON.stringify(grants));
    assert.ok(grants.some((g) => g.kind === "at_cap" && g.live === 2));
    const first = acquired[0];
    assert.ok(first?.kind === "acquired");
    await a.releaseSlot(first.slotId, usage(2));
    await b.releaseSlot(first.slotId, usage(5));
    assert.equal((await b.readUsage("browserless", 0)).amount, 2, "a slot already gone books nothing");
    assert.equal((await b.acquireSlot(slot())).kind, "acquired");
    const totals = await b.readUsage("browserless", 0);
    assert.deepEqual([totals.amount, totals.sessions, totals.liveSlots, totals.reserved], [2, 1, 2, 2]);
  }));

test("libsql provider store: the budget counts booked usage and live reservations; a crashed holder's slot is booked once at its reservation", () =>
  withProviders(async ({ a, b, clock }) => {
    const budget = { limit: 3, sinceMs: 0 };
    assert.equal((await a.acquireSlot(slot({ reserve: 2, budget, cap: 5 }))).kind, "acquired");
    assert.deepEqual(await a.acquireSlot(slot({ reserve: 2, budget, cap: 5 })), { kind: "over_budget", used: 0, reserved: 2, limit: 3 });
    assert.equal((await a.acquireSlot(slot({ reserve: 1, budget, cap: 5 }))).kind, "acquired", "2 held + 1 fits a limit of 3");
    assert.equal((await a.acquireSlot(slot({ reserve: 1, budget: null, cap: 5 }))).kind, "acquired", "without a budget only the cap counts");

    clock.now += MINUTE;
    assert.equal((await a.readUsage("browserless", 0)).reserved, 4, "expired slots still count until they are booked");
    const raced = await Promise.all([a, b].map((store) => store.acquireSlot(slot({ cap: 5, budget: null, expiresMs: clock.now + MINUTE }))));
    assert.deepEqual(
      raced.map((g) => g.kind),
      ["acquired", "acquired"],
    );
    const totals = await a.readUsage("browserless", 0);
    assert.deepEqual([totals.amount, totals.sessions, totals.liveSlots], [4, 3, 2], "each crashed session booked once, at the most it could have cost");
  }));

test("libsql provider store: smoke results and credential refusals are journaled without the provider's words; a back-off never shortens", () =>
  withProviders(async ({ store, a, clock }) => {
    const passed = await a.recordSmoke({ provider: "kernel", operationId: "op-1", status: "PASS", errorCode: null });
    assert.equal(passed.verifiedMs, clock.now);
    assert.deepEqual(await a.readProviderState("kernel"), passed);
    clock.now += SECOND;
    const refused = await a.recordAuthFailure("kernel", "401 Invalid or missing API key");
    assert.deepEqual([refused.verifiedMs, refused.authFailedMs, refused.authReason], [null, clock.now, "401 Invalid or missing API key"]);
    assert.deepEqual(await a.readProviderState("kernel"), refused);
    const failed = await a.recordSmoke({ provider: "kernel", operationId: "op-2", status: "FAIL", errorCode: "expectation_failed" });
    assert.deepEqual([failed.verifiedMs, failed.smokeErrorCode], [null, "expectation_failed"]);
    await a.recordBackoff("kernel", clock.now + 30 * SECOND, "Retry-After 30 s");
    await a.recordBackoff("kernel", clock.now + 5 * SECOND, "default");
    const state = await a.readProviderState("kernel");
    assert.deepEqual([state.backoffUntilMs, state.backoffReason], [clock.now + 30 * SECOND, "Retry-After 30 s"]);
    assert.deepEqual(
      (await a.listProviderStates()).map((s) => s.provider),
      ["kernel"],
    );
    const events = (await store.readJournalEvents(0, 100)).filter((e) => e.type === "provider_changed");
    assert.deepEqual(
      events.map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change),
      ["verified", "auth_failed", "smoke_failed"],
    );
    assert.ok(events.every((e) => !(e.body ?? "").includes("Invalid or missing")));
  }));
