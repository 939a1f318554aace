// The operations commands (in process): JSON envelopes and exit codes of submit, inspect, collect,
// cancel, status, runner and journal. Operations are run by the runner command with the fake
// executor, in process too.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import { loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import { startCountingServer } from "../../operations/support/countingServer.js";
import type { CountingServer } from "../../operations/support/countingServer.js";
import { runFakeRunnerInProcess } from "../../operations/support/fakeRunnerInProcess.js";
import { readTask, writeTask } from "../../operations/support/tasks.js";
import { errandInProcess, parseEnvelope } from "./support/runInProcess.js";
import type { Envelope } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-ops-cli-"));
let server: CountingServer;
before(async () => {
  server = await startCountingServer();
});
after(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The --json envelope (checked to have exactly its keys) when --json was given. */
  json: Envelope;
  /** Its data. */
  data: Record<string, unknown>;
}

async function errand(home: string, args: string[], stdin?: string): Promise<Run> {
  const run = await errandInProcess(args, { PATH: process.env["PATH"] ?? "", ERRAND_HOME: home }, stdin ?? "");
  const json = args.includes("--json") ? parseEnvelope(run.stdout) : ({ ok: false, status: "", receipt: null, error: null, data: {} } satisfies Envelope);
  return { ...run, json, data: json.data };
}

let homes = 0;
function freshHome(): string {
  homes += 1;
  const home = join(scratch, `home-${homes}`);
  loadOrCreateMasterKey(home);
  return home;
}

function taskFile(task: Record<string, unknown>): string {
  const file = join(scratch, `${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify(task));
  return file;
}

describe("errand submit / inspect / collect / cancel / status / journal", () => {
  test("submit prints status and handle; a repeat is not created again; a changed task exits 2 with identity_mismatch", async () => {
    const home = freshHome();
    const id = randomUUID();
    const first = await errand(home, ["submit", taskFile(readTask(id)), "--json"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json.status, "pending");
    assert.equal(first.json.ok, true);
    assert.equal(first.json.operationId, id);
    assert.equal(first.data["created"], true);
    const handle = first.data["handle"] as Record<string, unknown>;
    assert.deepEqual(Object.keys(handle).sort(), ["mutationBoundary", "operationId", "phase", "requestDigest", "revision", "v"]);
    assert.equal(handle["operationId"], id);

    const repeat = await errand(home, ["submit", "-", "--json"], JSON.stringify(readTask(id)));
    assert.equal(repeat.code, 0);
    assert.equal(repeat.data["created"], false);
    assert.deepEqual(repeat.data["handle"], handle);

    const changed = await errand(home, ["submit", taskFile(readTask(id, "changed")), "--json"]);
    assert.equal(changed.code, 2);
    assert.equal(changed.json.error?.code, "identity_mismatch");
    const human = await errand(home, ["submit", taskFile(readTask(id, "changed"))]);
    assert.equal(human.code, 2);
    assert.match(human.stderr, /\[identity_mismatch\]/);
  });

  test("submit exits 2 for invalid input and 4 for a missing approval", async () => {
    const home = freshHome();
    const notJson = await errand(home, ["submit", "-", "--json"], "{ nope");
    assert.equal(notJson.code, 2);
    assert.equal(notJson.json.error?.code, "invalid_json");
    const invalid = await errand(home, ["submit", taskFile({ ...readTask(), steps: [] }), "--json"]);
    assert.equal(invalid.code, 2);
    assert.equal(invalid.json.error?.code, "too_short");
    const unapproved = await errand(home, ["submit", taskFile({ ...writeTask(), approved: false }), "--json"]);
    assert.equal(unapproved.code, 4);
    assert.equal(unapproved.json.error?.code, "approval_required");
  });

  test("inspect and collect of a queued operation: pending, exit 0 and 7; unknown ids exit 1", async () => {
    const home = freshHome();
    const id = randomUUID();
    await errand(home, ["submit", taskFile(readTask(id))]);
    const inspected = await errand(home, ["inspect", id, "--json"]);
    assert.equal(inspected.code, 0);
    assert.equal(inspected.json.status, "pending");
    assert.equal((inspected.data["handle"] as Record<string, unknown>)["phase"], "queued");
    const collected = await errand(home, ["collect", id, "--json"]);
    assert.equal(collected.code, 7);
    assert.equal(collected.json.status, "pending");
    assert.equal(collected.json.ok, false);
    assert.equal(collected.json.receipt, null);
    const waited = await errand(home, ["collect", id, "--wait", "--timeout", "300", "--poll-interval", "50", "--json"]);
    assert.equal(waited.code, 7);
    const badPoll = await errand(home, ["collect", id, "--poll-interval", "60001"]);
    assert.equal(badPoll.code, 2);
    const unknown = await errand(home, ["inspect", randomUUID(), "--json"]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.json.error?.code, "operation_not_found");
  });

  test("errand runner exits 0 when it ran, even with nothing to do; a malformed flag exits 2 (the queue stays empty: no browser, no network)", async () => {
    const home = freshHome();
    const ran = await errand(home, ["runner", "--json"]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(ran.json, {
      ok: true,
      status: "drained",
      receipt: null,
      error: null,
      data: { recovered: [], attempts: [], refused: [], stoppedBecause: "drained" },
    });
    const badMax = await errand(home, ["runner", "--max", "zero"]);
    assert.equal(badMax.code, 2);
    const badAllowance = await errand(home, ["runner", "--allow-private", "not a host"]);
    assert.equal(badAllowance.code, 2);
  });

  test("collect exits by receipt status once terminal (0 PASS, 1 FAIL, 3 PARTIAL, 4 BLOCKED, 5 UNCERTAIN, 6 CANCELLED) and includes the receipt", async () => {
    const home = freshHome();
    const cases: [Record<string, unknown>, number, string][] = [
      [readTask(randomUUID()), 0, "PASS"],
      [readTask(randomUUID(), "fail"), 1, "FAIL"],
      [readTask(randomUUID(), "partial"), 3, "PARTIAL"],
      [readTask(randomUUID(), "config"), 4, "BLOCKED"],
      [writeTask(randomUUID(), "write-fail-after"), 5, "UNCERTAIN"],
    ];
    for (const [task] of cases) {
      if (task["risk"] === "read_only") assert.equal((await errand(home, ["submit", taskFile(task)])).code, 0);
      else {
        // Every write waits for the owner (ERRAND_OWNER_APPROVAL's default); the owner approves it on the host.
        assert.equal((await errand(home, ["submit", taskFile(task)])).code, 7);
        assert.equal((await errand(home, ["approve", String(task["operationId"]), "--yes"])).code, 0);
      }
    }
    const cancelled = randomUUID();
    await errand(home, ["submit", taskFile(readTask(cancelled))]);
    const controlId = randomUUID();
    const cancel = await errand(home, ["cancel", cancelled, "--control-id", controlId, "--json"]);
    assert.equal(cancel.code, 0);
    assert.equal(cancel.json.status, "cancelled");
    const repeated = await errand(home, ["cancel", cancelled, "--control-id", controlId, "--json"]);
    assert.equal(repeated.json.status, "cancelled");
    assert.equal(repeated.data["repeated"], true);

    const run = await runFakeRunnerInProcess({ PATH: process.env["PATH"] ?? "", ERRAND_HOME: home, ERRAND_RETRY_DELAY_MS: "0" }, server.origin);
    assert.equal(run.code, 0, run.stderr);
    for (const [task, exit, status] of [...cases, [readTask(cancelled), 6, "CANCELLED"] as [Record<string, unknown>, number, string]]) {
      const collected = await errand(home, ["collect", String(task["operationId"]), "--json"]);
      assert.equal(collected.code, exit, `${status}: ${collected.stdout}${collected.stderr}`);
      assert.equal(collected.json.receipt?.["status"], status);
      assert.equal(collected.json.status, status);
      assert.equal(collected.json.ok, status === "PASS");
    }
    const status = await errand(home, ["status", "--json"]);
    assert.equal(status.code, 0);
    const phases = (status.data["store"] as Record<string, Record<string, number>>)["phases"];
    assert.deepEqual(phases, { awaiting_approval: 0, queued: 0, running: 0, completed: 3, blocked: 1, uncertain: 1, cancelled: 1 });
  });

  test("journal verify exits 0 when intact and 1 naming the first bad event when not; compact needs a duration", async () => {
    const home = freshHome();
    await errand(home, ["submit", taskFile(readTask())]);
    await errand(home, ["submit", taskFile(readTask())]);
    const intact = await errand(home, ["journal", "verify"]);
    assert.equal(intact.code, 0, intact.stdout + intact.stderr);
    assert.match(intact.stdout, /^intact: 2 events/);
    assert.equal((await errand(home, ["journal", "compact"])).code, 2);
    assert.equal((await errand(home, ["journal", "compact", "--older-than", "soon"])).code, 2);
    const compacted = await errand(home, ["journal", "compact", "--older-than", "30d", "--json"]);
    assert.equal(compacted.code, 0);
    assert.equal(compacted.data["operations"], 0);

    const db = openSqliteDatabase(join(home, "errand.db"));
    db.prepare("UPDATE journal_events SET at_ms = at_ms + 1 WHERE seq = 2").run();
    db.close();
    const tampered = await errand(home, ["journal", "verify", "--json"]);
    assert.equal(tampered.code, 1);
    assert.equal(tampered.json.status, "tampered");
    assert.equal(tampered.json.error?.code, "journal_tampered");
    assert.equal(tampered.data["seq"], 2);
    const human = await errand(home, ["journal", "verify"]);
    assert.match(human.stdout, /^TAMPERED at event 2/);
  });
});
