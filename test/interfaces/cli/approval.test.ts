// Owner approval through the CLI (in process): submit/collect/run of a task that needs the owner exit
// 7 with the approval summary; `errand approve --yes` queues it and it runs once; `errand deny`
// ends it BLOCKED approval_denied and nothing reaches the site; approve refuses to act without a
// terminal or --yes; `errand owner unlock` answers. The runner is the runner command with the fake
// executor, in process too.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import { startCountingServer } from "../../operations/support/countingServer.js";
import type { CountingServer } from "../../operations/support/countingServer.js";
import { runFakeRunnerInProcess } from "../../operations/support/fakeRunnerInProcess.js";
import { writeTask } from "../../operations/support/tasks.js";
import { errandInProcess, parseEnvelope } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-approval-cli-"));
let server: CountingServer;
before(async () => {
  server = await startCountingServer();
});
after(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

let homes = 0;
function freshHome(): string {
  homes += 1;
  const home = join(scratch, `home-${homes}`);
  loadOrCreateMasterKey(home);
  return home;
}

function consequentialTaskFile(operationId: string): string {
  const file = join(scratch, `${operationId}.json`);
  writeFileSync(file, JSON.stringify(writeTask(operationId, undefined, { risk: "consequential" })));
  return file;
}

/** `errand ...args` in process; with `typed`, standard input is a terminal where those answers are typed. */
function errand(home: string, args: string[], typed?: string[]) {
  return errandInProcess(args, { PATH: process.env["PATH"] ?? "", ERRAND_HOME: home, ERRAND_PUBLIC_URL: "https://errand.example.test" }, "", typed);
}

async function runQueue(home: string): Promise<void> {
  const run = await runFakeRunnerInProcess({ PATH: process.env["PATH"] ?? "", ERRAND_HOME: home }, server.origin);
  assert.equal(run.code, 0, run.stderr);
}

describe("errand approve / deny / owner unlock", () => {
  test("a consequential task waits: submit and collect exit 7 with the summary and the approval URL; nothing runs before approval", async () => {
    const home = freshHome();
    const id = randomUUID();
    const submitted = await errand(home, ["submit", consequentialTaskFile(id), "--json"]);
    assert.equal(submitted.code, 7, submitted.stderr);
    const envelope = parseEnvelope(submitted.stdout);
    assert.equal(envelope.status, "awaiting_approval");
    const approval = envelope.data["approval"] as { url: string; summary: string; expiresAt: string };
    assert.ok(approval.url.startsWith("https://errand.example.test/owner/approvals/"), approval.url);
    assert.match(approval.summary, /consequential/);
    assert.match(approval.summary, /hmac-sha256:/);
    assert.ok(Number.isFinite(Date.parse(approval.expiresAt)));

    const text = await errand(home, ["collect", id]);
    assert.equal(text.code, 7);
    assert.match(text.stdout + text.stderr, /approv/i);

    await runQueue(home);
    assert.equal(server.count("POST", `/write/${id}`), 0, "the runner must not claim a task awaiting approval");
  });

  test("approve without a terminal and without --yes changes nothing (exit 2); approve --yes queues it and it runs exactly once", async () => {
    const home = freshHome();
    const id = randomUUID();
    assert.equal((await errand(home, ["submit", consequentialTaskFile(id)])).code, 7);
    const refused = await errand(home, ["approve", id]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal((await errand(home, ["collect", id])).code, 7, "still awaiting approval after the refused approve");

    const approved = await errand(home, ["approve", id, "--yes", "--json"]);
    assert.equal(approved.code, 0, approved.stdout + approved.stderr);
    await runQueue(home);
    await runQueue(home);
    assert.equal(server.count("POST", `/write/${id}`), 1);
    const collected = await errand(home, ["collect", id, "--json"]);
    assert.equal(collected.code, 0, collected.stdout);
    assert.equal(parseEnvelope(collected.stdout).status, "PASS");

    const again = await errand(home, ["approve", id, "--yes", "--json"]);
    assert.equal(again.code, 1, "an operation that no longer awaits approval cannot be approved again");
  });

  test("approve at a terminal asks after showing the request: any answer but yes changes nothing (exit 2), y approves it", async () => {
    const home = freshHome();
    const id = randomUUID();
    assert.equal((await errand(home, ["submit", consequentialTaskFile(id)])).code, 7);
    const declined = await errand(home, ["approve", id], ["maybe"]);
    assert.equal(declined.code, 2, declined.stderr);
    assert.match(declined.stderr, /waits for your approval[\s\S]*Approve this task\? \[y\/N\][\s\S]*not approved; nothing was changed/);
    assert.equal((await errand(home, ["collect", id])).code, 7, "still awaiting approval after the declined answer");
    const approved = await errand(home, ["approve", id], ["y"]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approved and queued/);
    await runQueue(home);
    assert.equal(server.count("POST", `/write/${id}`), 1);
  });

  test("deny ends the task BLOCKED approval_denied (collect exit 4) and nothing reaches the site", async () => {
    const home = freshHome();
    const id = randomUUID();
    assert.equal((await errand(home, ["submit", consequentialTaskFile(id)])).code, 7);
    const denied = await errand(home, ["deny", id, "--json"]);
    assert.equal(denied.code, 0, denied.stdout + denied.stderr);
    await runQueue(home);
    assert.equal(server.count("POST", `/write/${id}`), 0);
    const collected = await errand(home, ["collect", id, "--json"]);
    assert.equal(collected.code, 4);
    const envelope = parseEnvelope(collected.stdout);
    assert.equal(envelope.status, "BLOCKED");
    assert.equal((envelope.receipt?.["error"] as { code: string } | undefined)?.code, "approval_denied");
  });

  test("owner set-password at a terminal asks twice without showing it: two different entries change nothing, the same twice set it", async () => {
    const home = freshHome();
    const password = "terminal-owner-password-31";
    const differ = await errand(home, ["owner", "set-password"], [password, `${password}!`]);
    assert.equal(differ.code, 2, differ.stderr);
    assert.match(differ.stderr, /New owner password: \nAgain: \n[\s\S]*The two entries differ; nothing was changed/);
    const same = await errand(home, ["owner", "set-password"], [password, password]);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stderr, /owner password set/);
    for (const run of [differ, same]) assert.ok(!`${run.stdout}${run.stderr}`.includes(password), "a typed password is never printed");
  });

  test("errand owner unlock answers 0", async () => {
    const home = freshHome();
    const unlocked = await errand(home, ["owner", "unlock"]);
    assert.equal(unlocked.code, 0, unlocked.stdout + unlocked.stderr);
  });
});
