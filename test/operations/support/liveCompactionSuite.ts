// Scheduled compaction on a live store, the same tests on SQLite and PostgreSQL: the schedule
// compacts what finished more than ERRAND_COMPACT_AFTER ago (a manual clock moves time, nothing
// sleeps), verification and compaction see one snapshot while workers write, and a tampered journal
// is refused. Not a test file; liveCompaction.test.ts and liveCompaction.postgres.test.ts run it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { DAY } from "../../../src/config/units.js";
import type { RuntimeConfig } from "../../../src/config/runtimeConfig.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { startCompactionSchedule } from "../../../src/operations/compactionSchedule.js";
import type { CompactionRun } from "../../../src/operations/compactionSchedule.js";
import { createFakeExecutor } from "./fakeExecutor.js";
import type { Harness } from "./harness.js";
import { REVERSIBLE_WRITES_UNATTENDED, manualClock } from "./harness.js";
import { readTask, writeTask } from "./tasks.js";

export interface LiveStore {
  h: Harness;
  /** Runs SQL on the store's database (to tamper with it). */
  exec: (sql: string) => Promise<void>;
}

export type OpenLiveStore = (options: { execute: ExecuteTask; clock?: () => number; config?: Partial<RuntimeConfig> }) => Promise<LiveStore>;

const COMPACT_AFTER = 30 * DAY;

/** An operation's status as inspect answers it, or its error code. */
async function statusOf(h: Harness, operationId: string): Promise<string> {
  const inspected = await h.service.inspect(operationId);
  return inspected.ok ? inspected.status : inspected.code;
}

/** A timer the test fires by hand. */
function handTimer(): { every: (tick: () => void, intervalMs: number) => () => void; fire(): void; intervalMs: number | undefined; stopped: boolean } {
  const timer = {
    tick: undefined as (() => void) | undefined,
    intervalMs: undefined as number | undefined,
    stopped: false,
    every(tick: () => void, intervalMs: number) {
      timer.tick = tick;
      timer.intervalMs = intervalMs;
      return () => {
        timer.stopped = true;
      };
    },
    fire() {
      if (!timer.stopped) timer.tick?.();
    },
  };
  return timer;
}

export function liveCompactionSuite(backend: string, open: OpenLiveStore, options: { skip?: string } = {}): void {
  describe(`scheduled journal compaction on a live ${backend} store`, options.skip === undefined ? {} : { skip: options.skip }, () => {
    test("compacts at start what finished more than ERRAND_COMPACT_AFTER ago, then again at each tick; recent, queued and uncertain operations stay", async () => {
      const clock = manualClock();
      const fake = createFakeExecutor();
      const { h } = await open({ execute: fake.execute, clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
      const timer = handTimer();
      try {
        const old = [randomUUID(), randomUUID()];
        for (const id of old) await h.service.submit(readTask(id));
        const uncertain = randomUUID();
        await h.service.submit(writeTask(uncertain, "write-fail-after"));
        await h.service.runQueue();
        clock.advance(COMPACT_AFTER + 1);
        const recent = randomUUID();
        await h.service.submit(readTask(recent));
        await h.service.runQueue();
        const queued = randomUUID();
        await h.service.submit(readTask(queued));

        const runs: CompactionRun[] = [];
        const schedule = startCompactionSchedule({
          compact: (o) => h.service.compactJournal(o),
          afterMs: COMPACT_AFTER,
          report: (run) => runs.push(run),
          every: timer.every,
        });
        const first = await schedule.runNow();
        assert.equal(runs.length, 1, "one run at start (runNow answered the run in progress)");
        assert.ok(first.outcome === "compacted", JSON.stringify(first));
        assert.equal(first.report.operations, 2);
        assert.equal(timer.intervalMs, DAY / 24, "hourly");
        for (const id of old) assert.equal(await statusOf(h, id), "compacted");
        assert.equal(await statusOf(h, recent), "completed");
        assert.equal(await statusOf(h, queued), "pending");
        assert.equal(await statusOf(h, uncertain), "uncertain", "uncertain operations keep their evidence");

        timer.fire();
        const idle = await schedule.runNow();
        assert.ok(idle.outcome === "compacted" && idle.report.operations === 0, "nothing else is old enough yet");
        clock.advance(COMPACT_AFTER + 1);
        timer.fire();
        const second = await schedule.runNow();
        assert.ok(second.outcome === "compacted" && second.report.operations === 1, JSON.stringify(second));
        assert.equal(await statusOf(h, recent), "compacted");
        assert.equal(runs.length, 3);

        await schedule.stop();
        assert.ok(timer.stopped);
        timer.fire();
        assert.equal(runs.length, 3, "no run after stop");
        const verdict = await h.service.verifyJournal();
        assert.ok(verdict.ok, JSON.stringify(verdict));
        assert.equal(verdict.tombstones, 3);
      } finally {
        await h.close();
      }
    });

    test("verification and compaction read one snapshot: while a submit-and-run loop writes, neither reports tampering", async () => {
      const fake = createFakeExecutor();
      const { h } = await open({ execute: fake.execute });
      try {
        for (let i = 0; i < 20; i += 1) await h.service.submit(readTask());
        await h.service.runQueue();
        let writing = true;
        let written = 0;
        const writer = (async () => {
          while (writing) {
            await h.service.submit(readTask());
            await h.service.runQueue();
            written += 1;
          }
        })();
        const faults: string[] = [];
        let compacted = 0;
        try {
          for (let i = 0; i < 8; i += 1) {
            const verdict = await h.service.verifyJournal();
            if (!verdict.ok) faults.push(`verify: ${verdict.fault}: ${verdict.message}`);
            const report = await h.service.compactJournal({ olderThanMs: 0 });
            if (report.ok) compacted += report.operations;
            else faults.push(`compact: ${report.code}: ${report.message}`);
          }
        } finally {
          writing = false;
          await writer;
        }
        assert.deepEqual(faults, []);
        assert.ok(written >= 2, `the writer ran during the checks (${written} rounds)`);
        assert.ok(compacted >= 20, `${compacted} operations compacted`);
        const verdict = await h.service.verifyJournal();
        assert.ok(verdict.ok, JSON.stringify(verdict));
      } finally {
        await h.close();
      }
    });

    test("a journal that does not verify is reported refused and nothing is compacted", async () => {
      const clock = manualClock();
      const fake = createFakeExecutor();
      const { h, exec } = await open({ execute: fake.execute, clock: clock.now });
      try {
        const id = randomUUID();
        await h.service.submit(readTask(id));
        await h.service.runQueue();
        await exec("UPDATE journal_events SET at_ms = at_ms + 1 WHERE chain_seq = 1 AND operation_id IS NOT NULL");
        clock.advance(COMPACT_AFTER + 1);
        const runs: CompactionRun[] = [];
        const schedule = startCompactionSchedule({
          compact: (o) => h.service.compactJournal(o),
          afterMs: COMPACT_AFTER,
          report: (run) => runs.push(run),
          every: (tick, ms) => handTimer().every(tick, ms),
        });
        const run = await schedule.runNow();
        await schedule.stop();
        assert.ok(run.outcome === "refused" && run.code === "journal_tampered", JSON.stringify(run));
        assert.deepEqual(runs, [run]);
        assert.deepEqual(await h.store.readTombstones("", 10), [], "the evidence is kept: no operation was compacted");
      } finally {
        await h.close();
      }
    });
  });
}
