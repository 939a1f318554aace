// The router's shared state on a real SQLite file: slots and budgets are granted atomically across
// connections, expired slots free themselves and are booked at their reservation, smoke results and
// credential refusals are journaled, and a 429 back-off never shortens.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { MINUTE, SECOND } from "../../src/config/units.js";
import { openProviderStoreAt } from "../../src/app/openStores.js";
import type { SlotRequest } from "../../src/store/ProviderStore.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import { dropSchemas, freshPostgresLocation, testDatabase } from "../fixtures/testPostgres.js";

function slot(overrides: Partial<SlotRequest> = {}): SlotRequest {
  return {
    provider: "browserless",
    holder: "test",
    operationId: null,
    cap: 2,
    expiresMs: Date.UTC(2026, 0, 1) + MINUTE,
    reserve: 1,
    unit: "browserless_unit",
    budget: { limit: 1000, sinceMs: 0 },
    ...overrides,
  };
}

const database = await testDatabase();
const schemas: string[] = [];
after(() => (database.url === undefined ? undefined : dropSchemas(database.url, schemas)));

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  /** The harness's store location for this backend: a temporary SQLite file, or a fresh PostgreSQL schema. */
  const where = () => (backend === "postgres" && database.url !== undefined ? { location: freshPostgresLocation(database.url, schemas) } : {});
  describe(`ProviderStore (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("slots are capped across connections, and a released slot is taken again", async () => {
      const clock = manualClock();
      const h = await openHarness({ clock: clock.now, ...where() });
      const a = openProviderStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      const b = openProviderStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        const grants = await Promise.all([a, b, a, b].map((store) => store.acquireSlot(slot())));
        const acquired = grants.filter((g) => g.kind === "acquired");
        assert.equal(acquired.length, 2, JSON.stringify(grants));
        assert.ok(grants.some((g) => g.kind === "at_cap" && g.live === 2));
        const first = acquired[0];
        assert.ok(first?.kind === "acquired");
        await a.releaseSlot(first.slotId, {
          provider: "browserless",
          operationId: null,
          attempt: 1,
          sessionMs: 31 * SECOND,
          unit: "browserless_unit",
          amount: 2,
          usd: null,
          estimate: false,
        });
        assert.equal((await b.acquireSlot(slot())).kind, "acquired");
        const usage = await b.readUsage("browserless", 0);
        assert.equal(usage.amount, 2);
        assert.equal(usage.sessions, 1);
        assert.equal(usage.liveSlots, 2);
        assert.equal(usage.reserved, 2);
      } finally {
        await a.close();
        await b.close();
        await h.close();
      }
    });

    test("the budget counts booked usage and live reservations; a slot that would pass the cap is refused", async () => {
      const clock = manualClock();
      const h = await openHarness({ clock: clock.now, ...where() });
      const store = openProviderStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        const budget = { limit: 3, sinceMs: 0 };
        const one = await store.acquireSlot(slot({ reserve: 2, budget, cap: 5 }));
        assert.equal(one.kind, "acquired");
        assert.deepEqual(await store.acquireSlot(slot({ reserve: 2, budget, cap: 5 })), { kind: "over_budget", used: 0, reserved: 2, limit: 3 });
        assert.equal((await store.acquireSlot(slot({ reserve: 1, budget, cap: 5 }))).kind, "acquired", "2 held + 1 fits a cap of 3");
        assert.equal(
          (await store.acquireSlot(slot({ reserve: 1, budget: null, cap: 5 }))).kind,
          "acquired",
          "a provider without a budget is only capped by slots",
        );
      } finally {
        await store.close();
        await h.close();
      }
    });

    test("a slot whose holder crashed frees itself at its expiry and its reservation is booked as usage", async () => {
      const clock = manualClock();
      const h = await openHarness({ clock: clock.now, ...where() });
      const store = openProviderStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        const expiresMs = clock.now() + 40 * SECOND;
        assert.equal((await store.acquireSlot(slot({ cap: 1, reserve: 2, expiresMs }))).kind, "acquired");
        assert.equal((await store.acquireSlot(slot({ cap: 1, expiresMs }))).kind, "at_cap");
        clock.advance(40 * SECOND);
        assert.equal((await store.readUsage("browserless", 0)).reserved, 2, "an expired slot still counts until it is booked");
        assert.equal((await store.acquireSlot(slot({ cap: 1, expiresMs: clock.now() + MINUTE }))).kind, "acquired");
        const usage = await store.readUsage("browserless", 0);
        assert.equal(usage.amount, 2, "the crashed session is booked at the most it could have cost");
        assert.equal(usage.liveSlots, 1);
      } finally {
        await store.close();
        await h.close();
      }
    });

    test("smoke results and credential refusals are journaled and the journal still verifies; a back-off never shortens", async () => {
      const clock = manualClock();
      const h = await openHarness({ clock: clock.now, ...where() });
      const store = openProviderStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        const passed = await store.recordSmoke({ provider: "kernel", operationId: "op-1", status: "PASS", errorCode: null });
        assert.equal(passed.verifiedMs, clock.now());
        clock.advance(SECOND);
        const refused = await store.recordAuthFailure("kernel", "401 Invalid or missing API key");
        assert.equal(refused.verifiedMs, null);
        assert.equal(refused.authReason, "401 Invalid or missing API key");
        const failed = await store.recordSmoke({ provider: "kernel", operationId: "op-2", status: "FAIL", errorCode: "expectation_failed" });
        assert.equal(failed.verifiedMs, null);
        assert.equal(failed.smokeErrorCode, "expectation_failed");

        await store.recordBackoff("kernel", clock.now() + 30 * SECOND, "Retry-After 30 s");
        await store.recordBackoff("kernel", clock.now() + 5 * SECOND, "default");
        const state = await store.readProviderState("kernel");
        assert.equal(state.backoffUntilMs, clock.now() + 30 * SECOND);
        assert.equal(state.backoffReason, "Retry-After 30 s");

        const events = (await h.store.readJournalEvents(0, 100)).filter((e) => e.type === "provider_changed");
        assert.deepEqual(
          events.map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change),
          ["verified", "auth_failed", "smoke_failed"],
        );
        assert.ok(
          events.every((e) => !(e.body ?? "").includes("Invalid or missing")),
          "the provider's words stay in the state row, not the journal",
        );
        const verdict = await h.service.verifyJournal();
        assert.ok(verdict.ok, JSON.stringify(verdict));
      } finally {
        await store.close();
        await h.close();
      }
    });
  });
}
