// The compaction schedule alone, over a stand-in compaction: a run at start, one per tick, never two
// at once, failures reported rather than thrown, nothing after stop. (On real stores:
// liveCompaction.test.ts and liveCompaction.postgres.test.ts.)
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DAY, HOUR } from "../../src/config/units.js";
import { startCompactionSchedule } from "../../src/operations/compactionSchedule.js";
import type { CompactionRun } from "../../src/operations/compactionSchedule.js";
import type { CompactResult } from "../../src/operations/serviceTypes.js";

const DONE: CompactResult = { ok: true, operations: 2, eventBodies: 6, eventsRemoved: 6, bytesFreed: 900, storedBytes: 100, artifactsDeleted: 0 };

function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("compaction schedule", () => {
  test("runs once at start and once per tick with ERRAND_COMPACT_AFTER as the age; a tick during a run is dropped, not queued", async () => {
    const asked: number[] = [];
    let release = gate();
    let tick = (): void => undefined;
    let interval = 0;
    const runs: CompactionRun[] = [];
    const schedule = startCompactionSchedule({
      compact: async ({ olderThanMs }) => {
        asked.push(olderThanMs);
        await release.promise;
        return DONE;
      },
      afterMs: 30 * DAY,
      report: (run) => runs.push(run),
      every: (fire, ms) => {
        tick = fire;
        interval = ms;
        return () => undefined;
      },
    });
    assert.equal(interval, HOUR);
    assert.deepEqual(asked, [30 * DAY], "the run at start began at once");
    tick();
    tick();
    assert.equal(asked.length, 1, "ticks while it runs start nothing");
    release.open();
    const first = await schedule.runNow();
    assert.equal(first.outcome, "compacted");
    assert.equal(runs.length, 1);
    release = gate();
    tick();
    assert.equal(asked.length, 2, "the next tick runs again");
    release.open();
    await schedule.stop();
    assert.equal(runs.length, 2, "stop waits for the run in progress");
  });

  test("a refusal and a thrown store error are reported with their duration, never thrown; nothing runs after stop", async () => {
    const answers: (() => Promise<CompactResult>)[] = [
      () => Promise.resolve({ ok: false, code: "journal_tampered", message: "The journal does not verify" }),
      () => Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
    ];
    let now = 0;
    let tick = (): void => undefined;
    let stopped = false;
    const runs: CompactionRun[] = [];
    const schedule = startCompactionSchedule({
      compact: () => {
        now += 250;
        return (answers.shift() ?? (() => Promise.resolve(DONE)))();
      },
      afterMs: DAY,
      report: (run) => runs.push(run),
      clock: () => now,
      every: (fire) => {
        tick = fire;
        return () => {
          stopped = true;
        };
      },
    });
    const refused = await schedule.runNow();
    assert.ok(refused.outcome === "refused" && refused.code === "journal_tampered" && refused.ms === 250, JSON.stringify(refused));
    tick();
    const failed = await schedule.runNow();
    assert.ok(failed.outcome === "failed" && failed.error instanceof Error && /ECONNREFUSED/.test(failed.error.message), String(failed.outcome));
    await schedule.stop();
    assert.ok(stopped, "the timer is stopped");
    tick();
    assert.equal(runs.length, 2);
  });
});
