// Runners on several machines on one PostgreSQL database, as far as one machine can show it. Each
// "machine" is a Linux network namespace with its own veth link and address (it cannot see this
// host's loopback, so it reaches PostgreSQL and the counting fixture server only through relays on
// the host side of its link) and a wall clock that disagrees with this host's by minutes or an hour
// (libfaketime). The runner processes are the real runner command with the fake executor
// (support/fakeRunnerProcess.ts). What stays shared and is therefore not shown: the kernel, the
// filesystem (the master key is read from one ERRAND_HOME, as if copied to every machine), real
// latency and loss between hosts, and clocks that drift over time instead of a fixed offset.
// Needs root (ip netns), libfaketime and a PostgreSQL server; without any of them it skips with a notice.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import type { RunQueueReport } from "../../src/runner/runnerTypes.js";
import { startMachineNamespace } from "../fixtures/machineNamespace.js";
import type { MachineNamespace } from "../fixtures/machineNamespace.js";
import { namespaceUnavailable } from "../fixtures/publicHostNamespace.js";
import { faketimeUnavailable, offsetMs, skewedClock } from "../fixtures/skewedClock.js";
import { startTcpRelay } from "../fixtures/tcpRelay.js";
import type { TcpRelay } from "../fixtures/tcpRelay.js";
import { testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { startCountingServer } from "./support/countingServer.js";
import type { CountingServer } from "./support/countingServer.js";
import { assertEachRanOnce } from "./support/assertRanOnce.js";
import { openPostgresHarness } from "./support/postgresHarness.js";
import type { PostgresHarness } from "./support/postgresHarness.js";
import { spawnRunner } from "./support/spawnRunner.js";
import type { RunnerProcess } from "./support/spawnRunner.js";
import { readTask, writeTask } from "./support/tasks.js";

/** One machine: its namespace, its clock offset, and the relays that are its only way to the host's services. */
interface Machine {
  ns: MachineNamespace;
  clock: string;
  database: TcpRelay;
  fixture: TcpRelay;
}

/** An hour ahead, an hour behind, and minutes either way: every offset far longer than any lease used here. */
const CLOCKS = ["+1h", "-1h", "+7m", "-7m"] as const;
const [AHEAD, BEHIND, SLIGHTLY_AHEAD, SLIGHTLY_BEHIND] = [0, 1, 2, 3] as const;

const database = await testDatabase();
const unavailable = database.skip ?? namespaceUnavailable() ?? faketimeUnavailable();
if (unavailable !== null && database.skip === undefined) process.stderr.write(`NOTICE: the several-machines tests are skipped: ${unavailable}\n`);

let server: CountingServer;
const machines: Machine[] = [];
const namespaces: MachineNamespace[] = [];
const relays: TcpRelay[] = [];
const running = new Set<RunnerProcess>();

type Store = PostgresHarness;

/** A harness on a fresh database (opened by this process over loopback); `close` drops the database. */
function openDatabase(url: string): Promise<Store> {
  return openPostgresHarness(url, "errand_test_machines");
}

/** The database URL as `machine` sees it: the relay on the host side of its link. */
function urlFrom(machine: Machine, url: string): string {
  const seen = new URL(url);
  seen.hostname = machine.database.host;
  seen.port = String(machine.database.port);
  return seen.toString();
}

interface StartedRunner extends RunnerProcess {
  machine: Machine;
  /** This host's Date.now() just before the runner was started. */
  startedAt: number;
}

/** Starts the fake runner inside `machine`, with the machine's clock, reaching everything through its link. */
function runOn(machine: Machine, h: Store, env: Record<string, string>, args: string[] = ["--json"]): StartedRunner {
  const runner = spawnRunner(
    {
      ERRAND_HOME: h.home,
      ERRAND_DATABASE_URL: urlFrom(machine, h.databaseUrl),
      FAKE_FIXTURE_ORIGIN: `http://${machine.fixture.host}:${machine.fixture.port}`,
      ...env,
    },
    args,
    [...machine.ns.exec, ...skewedClock(machine.clock)],
  );
  running.add(runner);
  void runner.done.then(() => running.delete(runner));
  return { ...runner, machine, startedAt: Date.now() };
}

/** The runner's --json report, after checking it exited 0 and its clock was really skewed. */
async function reportOf(runner: StartedRunner): Promise<RunQueueReport> {
  const result = await runner.done;
  assert.equal(result.code, 0, `runner on ${runner.machine.clock}: ${result.stderr}`);
  assertSkewed(runner, result.stderr);
  return (JSON.parse(result.stdout) as { data: RunQueueReport }).data;
}

/**
 * The runner printed its own Date.now() as it started: it must be this host's time moved by the
 * machine's offset (within a minute for startup and load), or the clock tests prove nothing.
 */
function assertSkewed(runner: StartedRunner, stderr: string): void {
  const match = /fake runner clock (\d+)/.exec(stderr);
  assert.ok(match !== null, `the runner on ${runner.machine.clock} reported no clock: ${stderr}`);
  const skew = Number(match[1]) - runner.startedAt;
  const expected = offsetMs(runner.machine.clock);
  assert.ok(Math.abs(skew - expected) < 60_000, `the runner on ${runner.machine.clock} had a clock ${skew} ms off this host's, not about ${expected} ms`);
}

interface OperationRow {
  phase: string;
  attempts: number;
  lease_expires_ms: number | null;
  run_after_ms: number;
  /** The database's now() when the row was read. */
  now: number;
}

async function rowOf(h: Store, operationId: string): Promise<OperationRow> {
  return withSchemaClient(h.databaseUrl, undefined, async (client) => {
    const result = await client.query<Record<keyof OperationRow, string | null>>(
      "SELECT phase, attempts, lease_expires_ms, run_after_ms, (extract(epoch FROM now()) * 1000)::bigint AS now FROM operations WHERE operation_id = $1",
      [operationId],
    );
    const row = result.rows[0];
    assert.ok(row !== undefined, `no row for ${operationId}`);
    return {
      phase: String(row.phase),
      attempts: Number(row.attempts),
      lease_expires_ms: row.lease_expires_ms === null ? null : Number(row.lease_expires_ms),
      run_after_ms: Number(row.run_after_ms),
      now: Number(row.now),
    };
  });
}

/** Polls the operation's row until `holds` (the database's clock and state decide), or fails after `timeoutMs`. */
async function waitForRow(h: Store, operationId: string, what: string, holds: (row: OperationRow) => boolean, timeoutMs = 20_000): Promise<OperationRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await rowOf(h, operationId);
    if (holds(row)) return row;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms (row ${JSON.stringify(row)})`);
    await sleep(100);
  }
}

/** `promise`, or a failure naming `what` after `ms` (the timer cleared either way, so it keeps no test file alive). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function finishedEvents(h: Store, operationId: string): Promise<number> {
  return (await h.store.readJournalEvents(0, 10_000)).filter((e) => e.operationId === operationId && e.type === "operation_finished").length;
}

describe(
  "runners on several machines (network namespaces with skewed clocks) on one PostgreSQL database",
  unavailable === null ? {} : { skip: unavailable },
  () => {
    before(async () => {
      server = await startCountingServer();
      const target = new URL(database.url ?? "");
      const fixturePort = Number(new URL(server.origin).port);
      for (const clock of CLOCKS) {
        const ns = startMachineNamespace();
        namespaces.push(ns);
        const toDatabase = await startTcpRelay(ns.hostAddress, Number(target.port === "" ? "5432" : target.port), target.hostname);
        relays.push(toDatabase);
        const toFixture = await startTcpRelay(ns.hostAddress, fixturePort);
        relays.push(toFixture);
        machines.push({ ns, clock, database: toDatabase, fixture: toFixture });
      }
    });

    after(async () => {
      for (const runner of running) runner.child.kill("SIGKILL");
      await Promise.all([...running].map((runner) => runner.done));
      for (const relay of relays) await relay.close();
      for (const ns of namespaces) ns.close();
      await server?.close();
    });

    const machine = (index: number): Machine => {
      const found = machines[index];
      assert.ok(found !== undefined, `machine ${index} was not set up`);
      return found;
    };

    test("4 machines drain 200 read-only operations over their own links: each executed exactly once, no lease judged expired", async () => {
      const h = await openDatabase(database.url ?? "");
      try {
        const ids: string[] = [];
        for (let i = 0; i < 200; i += 1) {
          const id = randomUUID();
          assert.ok((await h.service.submit(readTask(id))).ok);
          ids.push(id);
        }
        // As in multiProcess.test.ts: time per attempt (50 ms) so the drain outlasts the runners'
        // startup, and a lease far longer than the drain so only the claim decides who runs what. The
        // lease is still minutes shorter than every clock offset: a runner timing leases on its own
        // clock would find the others' leases expired (an hour ahead) or the queued work not due yet
        // (an hour behind). The machine an hour ahead starts once the others are running attempts,
        // so the lease recovery every runner does first looks at live leases of other machines.
        const env = { FAKE_DELAY_MS: "50", ERRAND_LEASE_MS: "30000" };
        const runners = machines.filter((_, index) => index !== AHEAD).map((m) => runOn(m, h, env));
        for (const deadline = Date.now() + 20_000; ids.filter((id) => server.count("GET", `/read/${id}`) > 0).length < 10; await sleep(20)) {
          if (Date.now() > deadline) assert.fail("the first machines ran no attempt within 20 s");
        }
        runners.unshift(runOn(machine(AHEAD), h, env));
        const reports = await Promise.all(runners.map(reportOf));
        const perMachine = reports.map((r) => r.attempts.length);
        assert.equal(
          perMachine.reduce((a, b) => a + b, 0),
          200,
          `attempts per machine (${CLOCKS.join("/")}): ${perMachine.join("/")}`,
        );
        process.stderr.write(`note: attempts per machine (${CLOCKS.join("/")}): ${perMachine.join("/")}\n`);
        assert.ok(perMachine.filter((n) => n > 0).length >= 2, `the work was shared: ${perMachine.join("/")}`);
        for (const [index, report] of reports.entries()) assert.deepEqual(report.recovered, [], `the machine at ${CLOCKS[index]} recovered no live lease`);
        for (const m of machines)
          assert.ok(m.database.peers().has(m.ns.machineAddress), `the machine at ${m.clock} reached PostgreSQL over its link from ${m.ns.machineAddress}`);

        await assertEachRanOnce(h, server, ids);
      } finally {
        await h.close();
      }
    });

    test("leases on the database's clock: a machine an hour ahead leaves a live lease alone; after SIGKILL a machine an hour behind recovers it once it expired", async () => {
      const h = await openDatabase(database.url ?? "");
      const leaseMs = 3000;
      try {
        const id = randomUUID();
        assert.ok((await h.service.submit(readTask(id, "hang-once"))).ok);
        const holder = runOn(machine(SLIGHTLY_AHEAD), h, { ERRAND_LEASE_MS: String(leaseMs) });
        await server.waitFor("GET", `/read/${id}`);
        // The lease as stored, against the database's own now(): renewed by the holder to at most now + lease.
        const held = await rowOf(h, id);
        assert.equal(held.phase, "running");
        assert.ok(
          held.lease_expires_ms !== null && held.lease_expires_ms > held.now && held.lease_expires_ms <= held.now + leaseMs,
          `lease ends ${String(held.lease_expires_ms)}, database now ${held.now}`,
        );

        // The holder is alive and renewing, so whenever the ahead machine looks, the lease is live.
        const ahead = await reportOf(runOn(machine(AHEAD), h, { ERRAND_LEASE_MS: String(leaseMs) }));
        assert.deepEqual(ahead.recovered, [], "an hour ahead, the machine did not take the live lease for expired");
        assert.deepEqual(ahead.attempts, [], "and ran nothing");
        const still = await rowOf(h, id);
        assert.equal(still.phase, "running");
        assert.equal(still.attempts, 1);

        holder.child.kill("SIGKILL");
        const killed = await holder.done;
        assert.equal(killed.signal, "SIGKILL");
        assertSkewed(holder, killed.stderr);
        await waitForRow(h, id, "the lease expired on the database's clock", (row) => row.lease_expires_ms !== null && row.lease_expires_ms < row.now);

        const behind = await reportOf(runOn(machine(BEHIND), h, { ERRAND_LEASE_MS: String(leaseMs) }));
        assert.deepEqual(
          behind.recovered.map((r) => [r.operationId, r.resolution]),
          [[id, "requeue"]],
          "an hour behind, the machine still recovered the expired lease",
        );
        assert.deepEqual(
          behind.attempts.map((a) => [a.operationId, a.attempt, a.status]),
          [[id, 2, "PASS"]],
        );
        const collected = await h.service.collect(id);
        assert.ok(collected.ok);
        assert.equal(collected.receipt?.status, "PASS");
        assert.equal(collected.receipt?.attempts, 2, "the attempt lost to the kill counts");
        assert.equal(server.count("GET", `/read/${id}`), 2);
        assert.equal(await finishedEvents(h, id), 1, "completed once");
        const inspected = await h.service.inspect(id);
        assert.ok(inspected.ok && "attempts" in inspected);
        assert.deepEqual(
          inspected.attempts.map((a) => a.outcome),
          ["lost", "PASS"],
        );
        assert.ok((await h.service.verifyJournal()).ok);
      } finally {
        await h.close();
      }
    });

    test("retry delays on the database's clock: a read failed on a machine an hour behind is not run early by one an hour ahead, and runs once it is due", async () => {
      const h = await openDatabase(database.url ?? "");
      const retryDelayMs = 5000;
      try {
        const id = randomUUID();
        assert.ok((await h.service.submit(readTask(id, "fail-once"))).ok);
        const first = await reportOf(runOn(machine(BEHIND), h, { ERRAND_RETRY_DELAY_MS: String(retryDelayMs) }));
        assert.deepEqual(
          first.attempts.map((a) => [a.operationId, a.outcome]),
          [[id, "requeued"]],
        );
        const waiting = await rowOf(h, id);
        assert.equal(waiting.phase, "queued");
        assert.ok(
          waiting.run_after_ms > waiting.now && waiting.run_after_ms <= waiting.now + retryDelayMs,
          `due at ${waiting.run_after_ms}, database now ${waiting.now}`,
        );

        const early = await reportOf(runOn(machine(AHEAD), h, { ERRAND_RETRY_DELAY_MS: String(retryDelayMs) }));
        const afterEarly = await rowOf(h, id);
        if (afterEarly.now < waiting.run_after_ms) assert.deepEqual(early.attempts, [], "an hour ahead, the machine did not run the retry before it was due");
        else process.stderr.write(`note: the early runner finished only after the retry was due (load); the early check was not made\n`);

        await waitForRow(h, id, "the retry fell due on the database's clock", (row) => row.now >= row.run_after_ms);
        const due = await reportOf(runOn(machine(SLIGHTLY_BEHIND), h, {}));
        assert.deepEqual(
          [...early.attempts, ...due.attempts].map((a) => [a.operationId, a.attempt, a.status]),
          [[id, 2, "PASS"]],
        );
        const collected = await h.service.collect(id);
        assert.ok(collected.ok);
        assert.equal(collected.receipt?.status, "PASS");
        assert.equal(collected.receipt?.attempts, 2);
        assert.equal(server.count("GET", `/read/${id}`), 2);
      } finally {
        await h.close();
      }
    });

    test("a machine cut off the network mid-attempt: another recovers and re-runs the read after the lease; the late completion is fenced and changes nothing", async () => {
      const h = await openDatabase(database.url ?? "");
      const leaseMs = 2000;
      const cut = machine(SLIGHTLY_AHEAD);
      let healed = false;
      try {
        const id = randomUUID();
        assert.ok((await h.service.submit(readTask(id))).ok);
        // The partitioned runner holds its finished outcome for 1.5 s before resolving the attempt:
        // the network is cut in between, so its resolution is sent into the partition.
        const partitioned = runOn(cut, h, { ERRAND_LEASE_MS: String(leaseMs), FAKE_LINGER_MS: "1500" });
        let returnedAt: number | undefined;
        partitioned.child.stderr?.on("data", (chunk: Buffer) => {
          if (returnedAt === undefined && chunk.toString().includes(`fake attempt returned ${id}`)) returnedAt = Date.now();
        });
        await server.waitFor("GET", `/read/${id}`);
        await sleep(200); // the GET's answer is back in the namespace before the cut
        cut.ns.partition();
        const partitionedAt = Date.now();

        // The rescuer holds its own outcome for 5 s too, so the partitioned runner's resolution,
        // released by the heal, arrives while the rescuer's attempt still holds the operation: only
        // the lease token (not the phase) can refuse it then.
        const rescuer = runOn(machine(SLIGHTLY_BEHIND), h, { ERRAND_LEASE_MS: String(leaseMs), FAKE_LINGER_MS: "5000" }, ["--watch", "--json"]);
        for (const deadline = Date.now() + 20_000; server.count("GET", `/read/${id}`) < 2; await sleep(20)) {
          if (Date.now() > deadline) assert.fail("the other machine did not re-run the read within 20 s of the cut");
        }
        assert.ok(returnedAt !== undefined && returnedAt >= partitionedAt, "the partitioned runner's attempt returned during the partition");

        cut.ns.heal();
        healed = true;
        const healedAt = Date.now();
        const late = await within(reportOf(partitioned), 30_000, "the partitioned runner finishing after the heal");
        assert.deepEqual(
          late.attempts.map((a) => [a.operationId, a.attempt, a.outcome]),
          [[id, 1, "lease_lost"]],
          "its late resolution was refused by the lease token",
        );
        const meanwhile = await rowOf(h, id);
        assert.deepEqual(
          [meanwhile.phase, meanwhile.attempts],
          ["running", 2],
          "the late resolution arrived while the rescuer's attempt ran, and changed nothing",
        );
        process.stderr.write(`note: partition ${healedAt - partitionedAt} ms; the partitioned runner finished ${Date.now() - healedAt} ms after the heal\n`);

        const done = await waitForRow(h, id, "the other machine completed the read", (row) => row.phase === "completed");
        assert.equal(done.attempts, 2);
        assert.equal(server.count("GET", `/read/${id}`), 2, "the read ran twice: on the cut machine and on the rescuer");

        rescuer.child.kill("SIGTERM");
        const rescued = await reportOf(rescuer);
        assert.deepEqual(
          rescued.recovered.map((r) => [r.operationId, r.resolution]),
          [[id, "requeue"]],
        );

        const collected = await h.service.collect(id);
        assert.ok(collected.ok);
        assert.equal(collected.receipt?.status, "PASS");
        assert.equal(collected.receipt?.attempts, 2, "the receipt is the rescuer's");
        assert.equal(await finishedEvents(h, id), 1, "completed once");
        const inspected = await h.service.inspect(id);
        assert.ok(inspected.ok && "attempts" in inspected);
        assert.deepEqual(
          inspected.attempts.map((a) => a.outcome),
          ["lost", "PASS"],
        );
        assert.ok((await h.service.verifyJournal()).ok);
      } finally {
        if (!healed) cut.ns.heal();
        await h.close();
      }
    });

    test("a write past its boundary on a machine an hour ahead, killed with SIGKILL: a machine an hour behind ends it UNCERTAIN and nothing sends it again", async () => {
      const h = await openDatabase(database.url ?? "");
      const leaseMs = 2000;
      try {
        const id = randomUUID();
        const submitted = await h.service.submit(writeTask(id, "write-hang"));
        assert.ok(submitted.ok);
        // Every write waits for the owner (ERRAND_OWNER_APPROVAL's default); the owner approves this one.
        assert.ok(
          (await h.service.decideApproval(id, { approve: true, requestDigest: submitted.handle.requestDigest, decidedBy: "owner (test)", via: "cli" })).ok,
        );
        const doomed = runOn(machine(AHEAD), h, { ERRAND_LEASE_MS: String(leaseMs) });
        await server.waitFor("POST", `/write/${id}`);
        doomed.child.kill("SIGKILL");
        assertSkewed(doomed, (await doomed.done).stderr);
        const boundary = await h.service.inspect(id);
        assert.ok(boundary.ok);
        assert.equal(boundary.handle.mutationBoundary, "crossed");

        await waitForRow(h, id, "the lease expired on the database's clock", (row) => row.lease_expires_ms !== null && row.lease_expires_ms < row.now);
        const rescuer = await reportOf(runOn(machine(BEHIND), h, { ERRAND_LEASE_MS: String(leaseMs) }));
        assert.deepEqual(
          rescuer.recovered.map((r) => r.operationId),
          [id],
        );
        const collected = await h.service.collect(id);
        assert.ok(collected.ok);
        assert.equal(collected.status, "uncertain");
        assert.equal(collected.receipt?.status, "UNCERTAIN");
        assert.equal(collected.receipt?.error?.code, "lease_expired");

        await reportOf(runOn(machine(SLIGHTLY_BEHIND), h, { ERRAND_LEASE_MS: String(leaseMs) }));
        assert.equal(server.count("POST", `/write/${id}`), 1, "the write was never sent again");
        assert.ok((await h.service.verifyJournal()).ok);
      } finally {
        await h.close();
      }
    });
  },
);
