// What errand serve logs and counts for each scheduled compaction.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DAY } from "../../src/config/units.js";
import { compactionReporter } from "../../src/app/compactionReporter.js";
import { createErrandMetrics } from "../../src/interfaces/http/observability/errandMetrics.js";
import { createPinoLogger } from "../../src/interfaces/http/observability/pinoLogger.js";

test("a compaction is one info line with its counts, nothing to do is debug, a refusal or failure is an error line; /metrics counts each by outcome", async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createPinoLogger({ format: "json", level: "debug", write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const phases = { awaiting_approval: 0, queued: 0, running: 0, completed: 0, blocked: 0, uncertain: 0, cancelled: 0 };
  const status = {
    store: { phases, expiredLeases: 0, delayed: 0, nextEligibleMs: null, tombstones: 3, journalSeq: 9, storedBytes: 1000, schemaVersion: 1, backend: "sqlite" },
    journal: { seq: 9, storedBytes: 1000, quotaBytes: 4096 },
    breakers: [],
  };
  const metrics = createErrandMetrics({ status: () => Promise.resolve(status), usage: () => Promise.resolve([]) });
  const report = compactionReporter(logger, metrics, 30 * DAY);
  const counts = { ok: true as const, eventBodies: 9, eventsRemoved: 9, bytesFreed: 4000, storedBytes: 1000, artifactsDeleted: 1 };
  report({ outcome: "compacted", report: { ...counts, operations: 3 }, ms: 40 });
  report({ outcome: "compacted", report: { ...counts, operations: 0, eventsRemoved: 0, eventBodies: 0 }, ms: 5 });
  report({ outcome: "refused", code: "journal_tampered", message: "The journal does not verify (mac at event 7)", ms: 9 });
  report({ outcome: "failed", error: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), ms: 3 });

  assert.deepEqual(
    lines.map((l) => [l["level"], l["msg"]]),
    [
      ["info", "journal compacted"],
      ["debug", "journal compaction: nothing finished long enough ago"],
      ["error", "Journal compaction refused; nothing was compacted"],
      ["error", "Journal compaction failed; it runs again within the hour"],
    ],
  );
  assert.deepEqual(
    { ...lines[0], time: undefined },
    {
      time: undefined,
      level: "info",
      msg: "journal compacted",
      compactAfter: "30d",
      operations: 3,
      eventsRemoved: 9,
      bytesFreed: 4000,
      storedBytes: 1000,
      artifactsDeleted: 1,
      ms: 40,
    },
  );
  const failure = (line: Record<string, unknown> | undefined) => {
    const { kind, message } = line?.["failure"] as { kind: string; message: string };
    return { kind, message };
  };
  assert.deepEqual(failure(lines[2]), { kind: "journal_tampered", message: "The journal does not verify (mac at event 7)" });
  assert.deepEqual(failure(lines[3]), { kind: "ECONNREFUSED", message: "connect ECONNREFUSED" });

  const { body } = await metrics.render();
  assert.match(body, /^errand_journal_compactions_total\{outcome="compacted"\} 2$/m);
  assert.match(body, /^errand_journal_compactions_total\{outcome="refused"\} 1$/m);
  assert.match(body, /^errand_journal_compactions_total\{outcome="failed"\} 1$/m);
  assert.match(body, /^errand_journal_compacted_operations_total 3$/m);
});
