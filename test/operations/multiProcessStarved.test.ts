// A runner process starved of CPU, as on a loaded machine: stopped (SIGSTOP) and resumed (SIGCONT)
// again and again, each stop shorter than its lease, while its worker pool (errand runner --watch,
// errand serve's pool) works a queue of reads and a write against a loopback counting server, and
// the test looks for expired leases as another runner would. Run once per store (SQLite file,
// PostgreSQL database).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import type { RunQueueReport } from "../../src/runner/runnerTypes.js";
import { decideExpiredLease } from "../../src/runner/decideExpiredLease.js";
import { startCountingServer } from "./support/countingServer.js";
import type { CountingServer } from "./support/countingServer.js";
import { testDatabase } from "../fixtures/testPostgres.js";
import type { Harness } from "./support/harness.js";
import { openHarness } from "./support/harness.js";
import { openPostgresHarness } from "./support/postgresHarness.js";
import { spawnRunner } from "./support/spawnRunner.js";
import { readTask, writeTask } from "./support/tasks.js";

/**
 * The lease and the stops: each stop is 3/8 of the lease, longer than the third of it between two
 * renewals, and each attempt lasts one and a half leases, so it lives only if its runner renews
 * as soon as it resumes and no renewal waits behind anything else (the cancel poll, the attempt's
 * work, keeping its outcome).
 */
const LEASE_MS = 4000;
const STOP_MS = 1500;
/** How long the runner runs between two stops: enough for a prompt renewal, less than a third of the lease. */
const RUN_MS = { min: 200, max: 600 };
const READS = 3;
const WRITES = 1;
const ATTEMPT_DELAY_MS = String(Math.round(1.5 * LEASE_MS));

let server: CountingServer;
before(async () => {
  server = await startCountingServer();
});
after(async () => {
  await server.close();
});

const database = await testDatabase();

async function openStore(backend: "sqlite" | "postgres"): Promise<Harness & { databaseUrl?: string }> {
  if (backend === "sqlite" || database.url === undefined) return await openHarness();
  return openPostgresHarness(database.url, "errand_test_starved");
}

/** Whether every one of `ids` has left the queue and its attempt (the phase the store shows). */
async function allDone(h: Harness, ids: readonly string[]): Promise<boolean> {
  for (const id of ids) {
    const view = await h.store.readOperation(id);
    if (view?.kind === "live" && (view.operation.phase === "queued" || view.operation.phase === "running")) return false;
  }
  return true;
}

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  describe(`a starved runner process (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("stopped and resumed again and again, each stop shorter than its lease: every operation runs once, the site sees each request once, nobody recovers a live lease", async () => {
      const h = await openStore(backend);
      const reads = Array.from({ length: READS }, () => randomUUID());
      const writes = Array.from({ length: WRITES }, () => randomUUID());
      const ids = [...reads, ...writes];
      for (const id of reads) assert.ok((await h.service.submit(readTask(id))).ok);
      for (const id of writes) {
        const submitted = await h.service.submit(writeTask(id));
        assert.ok(submitted.ok);
        // Every write waits for the owner (ERRAND_OWNER_APPROVAL's default); the owner approves this one.
        assert.ok(
          (await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, decidedBy: "owner (test)", via: "cli" })).ok,
        );
      }
      const runner = spawnRunner(
        {
          ERRAND_HOME: h.home,
          ...(h.databaseUrl === undefined ? {} : { ERRAND_DATABASE_URL: h.databaseUrl }),
          ERRAND_LEASE_MS: String(LEASE_MS),
          FAKE_FIXTURE_ORIGIN: server.origin,
          FAKE_DELAY_MS: ATTEMPT_DELAY_MS,
        },
        ["--watch", "--concurrency", String(READS + WRITES), "--json"],
      );
      let exited = false;
      void runner.done.then(() => (exited = true));
      // Another runner's lease recovery, as often as a busy pool would look.
      const recovered: string[] = [];
      let finished = false;
      const watcher = (async () => {
        while (!exited && !finished) {
          const now = new Date(await h.store.now());
          for (const item of await h.store.recoverExpiredLeases((expired) => decideExpiredLease(expired, now), 10)) recovered.push(item.operationId);
          await sleep(100);
        }
      })();
      let stops = 0;
      try {
        // The stops start once the runner works (starting a process under stops only makes the test slow).
        while (!exited && !(await h.store.readOperation(reads[0] ?? "").then((view) => view?.kind === "live" && view.operation.phase !== "queued")))
          await sleep(25);
        while (!exited && !(await allDone(h, ids))) {
          await sleep(RUN_MS.min + Math.random() * (RUN_MS.max - RUN_MS.min));
          runner.child.kill("SIGSTOP");
          stops += 1;
          try {
            await sleep(STOP_MS);
          } finally {
            runner.child.kill("SIGCONT");
          }
        }
        finished = true;
        await watcher;
        runner.child.kill("SIGTERM");
        const result = await runner.done;
        assert.equal(result.code, 0, result.stderr);
        const report = (JSON.parse(result.stdout) as { data: RunQueueReport }).data;
        assert.ok(stops >= 4, `the runner was stopped ${stops} times`);
        assert.deepEqual(recovered, [], "no live lease was recovered by another runner");
        assert.deepEqual(report.recovered, [], "nor by the runner's own pool");
        assert.deepEqual(
          report.attempts.filter((a) => a.outcome !== "finished"),
          [],
          "no attempt lost its lease",
        );
        for (const id of reads) assert.equal(server.count("GET", `/read/${id}`), 1, `read ${id} reached the site once`);
        for (const id of writes) assert.equal(server.count("POST", `/write/${id}`), 1, `write ${id} reached the site once`);
        for (const id of ids) {
          const collected = await h.service.collect(id);
          assert.ok(collected.ok);
          assert.equal(collected.receipt?.status, "PASS", `${id}: ${JSON.stringify(collected.receipt?.error)}`);
          assert.equal(collected.receipt?.attempts, 1);
        }
        assert.ok((await h.service.verifyJournal()).ok);
        process.stderr.write(`note: ${backend}: ${stops} stops of ${STOP_MS} ms under a ${LEASE_MS} ms lease\n`);
      } finally {
        finished = true;
        runner.child.kill("SIGCONT");
        if (!exited) runner.child.kill("SIGKILL");
        await runner.done;
        await watcher.catch(() => undefined);
        await h.close();
      }
    });
  });
}
