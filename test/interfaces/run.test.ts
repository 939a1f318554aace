import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { errandInProcess } from "./cli/support/runInProcess.js";

const SECRET = "Zq9 pass/word+&%!";
let sites: Awaited<ReturnType<typeof startFixtureSites>>;
let home: string;

/**
 * Runs the CLI in this process (runCli, as main.ts calls it), with this process's environment plus
 * ERRAND_HOME and a short retry delay. Most cases here are about what `errand run` decides, which
 * is the same in process; the secret canary and the demo also run as real processes (below).
 */
function errand(args: string[], env: Record<string, string> = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return errandInProcess(args, { ...inherited, ERRAND_HOME: home, ERRAND_RETRY_DELAY_MS: "300", ...env }, input ?? "");
}

/**
 * Runs the CLI as a real process (asynchronously: the fixture site lives in this process): where
 * what the process itself writes matters (a secret must not reach its real stdout or stderr by any
 * path) or the command is README's quick start.
 */
function errandProcess(args: string[], env: Record<string, string> = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/interfaces/cli/main.ts", ...args], {
      env: { ...process.env, ERRAND_HOME: home, ERRAND_RETRY_DELAY_MS: "300", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

function taskFile(partial: Record<string, unknown>): string {
  const file = join(home, `${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify({ schemaVersion: "errand.task.v1", operationId: randomUUID(), risk: "read_only", ...partial }));
  return file;
}

function everyFileUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? everyFileUnder(full) : [full];
  });
}

before(async () => {
  sites = await startFixtureSites();
  home = mkdtempSync(join(tmpdir(), "errand-run-"));
});
after(() => sites.close());

describe("errand run", () => {
  test("exits 0 on PASS and 3 on PARTIAL, with the receipt on stdout and progress on stderr", async () => {
    const allow = ["--allow-private", sites.site.origin.slice("http://".length)];
    const pass = await errand([
      "run",
      taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Fixture Home" }] }),
      ...allow,
    ]);
    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, /^PASS/);
    assert.match(pass.stderr, /step 1 \(\/steps\/0\) of 1 expect_text/);
    const partial = await errand([
      "run",
      taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "wait_for", selector: "#title" }] }),
      ...allow,
      "--json",
    ]);
    assert.equal(partial.code, 3);
    assert.equal((JSON.parse(partial.stdout) as { receipt: { status: string } }).receipt.status, "PARTIAL");
  });

  test("exits 1 on FAIL, 2 on invalid input, 4 on BLOCKED (missing approval, private target without allowance)", async () => {
    const allow = ["--allow-private", sites.site.origin.slice("http://".length)];
    const fail = await errand([
      "run",
      taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "absent", timeoutMs: 200 }] }),
      ...allow,
    ]);
    assert.equal(fail.code, 1);
    const invalid = await errand(["run", "-"], {}, "{not json");
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /invalid_json/);
    const unapproved = await errand([
      "run",
      taskFile({ target: { url: `${sites.site.origin}/` }, risk: "consequential", steps: [{ action: "click", selector: "#to-form" }] }),
      ...allow,
      "--json",
    ]);
    assert.equal(unapproved.code, 4);
    assert.equal((JSON.parse(unapproved.stdout) as { receipt: { error: { code: string } } }).receipt.error.code, "approval_required");
    const hitsBefore = sites.site.hits.length;
    const privateTarget = await errand(["run", taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "x" }] })]);
    assert.equal(privateTarget.code, 4, "a loopback target needs an operator allowance");
    assert.equal(sites.site.hits.length, hitsBefore, "nothing reached the site");
  });

  test("a task can never widen the operator's allowance: an IP in allowedHosts is refused", async () => {
    const r = await errand([
      "run",
      taskFile({ target: { url: `${sites.site.origin}/` }, allowedHosts: ["127.0.0.1"], steps: [{ action: "expect_text", text: "x" }] }),
      "--json",
    ]);
    assert.equal(r.code, 4, "an IP may be listed only when an operator allowance names it");
    assert.equal((JSON.parse(r.stdout) as { receipt: { error: { code: string } } }).receipt.error.code, "invalid_allowed_host");
  });

  test("an allowedHosts list the policy can never honour (localhost, metadata) is BLOCKED before the browser opens", async () => {
    const allow = ["--allow-private", sites.site.origin.slice("http://".length)];
    for (const host of ["localhost", "metadata.google.internal", "app.localhost", "instance-data"]) {
      const hits = sites.site.hits.length;
      const r = await errand([
        "run",
        taskFile({ target: { url: `${sites.site.origin}/` }, allowedHosts: [host], steps: [{ action: "expect_text", text: "x" }] }),
        ...allow,
        "--json",
      ]);
      assert.equal(r.code, 4, `${host}: ${r.stdout}${r.stderr}`);
      assert.equal((JSON.parse(r.stdout) as { receipt: { error: { code: string } } }).receipt.error.code, "invalid_allowed_host");
      assert.equal(sites.site.hits.length, hits, "nothing reached the site");
    }
  });

  test("never lets a secret value reach stdout, stderr, the receipt file or ERRAND_HOME", async () => {
    const receiptOut = join(home, "receipt.json");
    const file = taskFile({
      target: { url: `${sites.site.origin}/login-get` },
      secretApproval: true,
      evidenceRetention: "full",
      steps: [
        { action: "fill_secret", selector: "#password", secret: "FIXTURE_SECRET" },
        { action: "click", selector: "#go" },
        { action: "extract_text", selector: "#msg", name: "message" },
        { action: "expect_text", text: "Welcome" },
        { action: "expect_text", text: "this text is not there", timeoutMs: 200 },
      ],
    });
    const declared = await errand(["secret", "set", "FIXTURE_SECRET", "--site", sites.site.origin], {}, `${SECRET}\n`);
    assert.equal(declared.code, 0, declared.stderr);
    for (const json of [[], ["--json"]]) {
      // ERRAND_OWNER_APPROVAL=none: this test is about the secret's path, not the owner's approval (test/interfaces/cli/approval.test.ts).
      const r = await errandProcess(["run", file, "--allow-private", sites.site.origin.slice("http://".length), "--receipt-out", receiptOut, ...json], {
        ERRAND_OWNER_APPROVAL: "none",
      });
      assert.equal(r.code, 1, r.stderr);
      assert.ok(
        sites.site.hits.some((h) => h.path === "/welcome"),
        "the form was submitted with the secret",
      );
      const spellings = [SECRET, encodeURIComponent(SECRET), new URLSearchParams({ s: SECRET }).toString().slice(2), "Zq9"];
      for (const place of [r.stdout, r.stderr, readFileSync(receiptOut, "utf8"), ...everyFileUnder(home).map((f) => readFileSync(f, "latin1"))]) {
        for (const spelling of spellings) assert.ok(!place.includes(spelling), `found ${spelling}`);
      }
      assert.match(r.stdout, /REDACTED/);
    }
  });
});

describe("errand run goes through submit, runner and collect", () => {
  test("running the same file twice executes once and prints the same receipt; a changed task under that id is identity_mismatch", async () => {
    const allow = ["--allow-private", sites.site.origin.slice("http://".length)];
    const file = taskFile({
      target: { url: `${sites.site.origin}/form` },
      risk: "reversible_write",
      approved: true,
      steps: [
        { action: "fill", selector: "#name", value: "Once" },
        { action: "click", selector: "#submit" },
        { action: "expect_text", text: "Saved Once" },
      ],
    });
    const savesBefore = sites.site.count("/save", "POST");
    // A write waits for the owner (ERRAND_OWNER_APPROVAL's default): nothing is sent until "errand approve".
    const waiting = await errand(["run", file, ...allow, "--json"]);
    assert.equal(waiting.code, 7, waiting.stderr);
    assert.equal(sites.site.count("/save", "POST"), savesBefore);
    assert.equal((await errand(["approve", (JSON.parse(waiting.stdout) as { operationId: string }).operationId, "--yes"])).code, 0);
    const first = await errand(["run", file, ...allow, "--json"]);
    assert.equal(first.code, 0, first.stderr);
    const second = await errand(["run", file, ...allow, "--json"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /already exists/);
    assert.equal(sites.site.count("/save", "POST"), savesBefore + 1, "the write reached the site exactly once");
    const receiptOf = (out: string) => (JSON.parse(out) as { receipt: { requestDigest: string; startedAt: string } }).receipt;
    assert.deepEqual(receiptOf(second.stdout), receiptOf(first.stdout));
    const changed = JSON.parse(readFileSync(file, "utf8")) as { steps: { value?: string }[] };
    changed.steps[0]!.value = "Twice";
    writeFileSync(file, JSON.stringify(changed));
    const mismatch = await errand(["run", file, ...allow, "--json"]);
    assert.equal(mismatch.code, 2);
    assert.match(mismatch.stdout, /identity_mismatch/);
    assert.equal(sites.site.count("/save", "POST"), savesBefore + 1);
  });

  test("errand run runs its own operation only; another queued operation stays queued", async () => {
    const allow = ["--allow-private", sites.site.origin.slice("http://".length)];
    const queuedFile = taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Fixture Home" }] });
    const submitted = await errand(["submit", queuedFile, "--json"]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const queuedId = (JSON.parse(submitted.stdout) as { operationId: string }).operationId;
    const ran = await errand(["run", taskFile({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Welcome" }] }), ...allow]);
    assert.equal(ran.code, 0, ran.stderr);
    const inspected = await errand(["inspect", queuedId, "--json"]);
    assert.equal((JSON.parse(inspected.stdout) as { status: string }).status, "pending");
  });
});

describe("errand demo", () => {
  test("prints three receipts: the read and the write with a declared secret PASS, the look-alike site is BLOCKED", async () => {
    const r = await errandProcess(["demo"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout.match(/^PASS/gm)?.length, 2);
    assert.equal(r.stdout.match(/^BLOCKED/gm)?.length, 1);
    assert.match(r.stdout, /secret_site_mismatch/);
    assert.match(r.stderr, /the look-alike site received 0 form submission\(s\)/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes("demo-pass-4821"));
  });

  test("--json prints one envelope holding the three runs", async () => {
    // Its own ERRAND_HOME: in this one test process, opening the database file that a spawned errand
    // had just used and closed gave SQLite "disk I/O error" on its first PRAGMA (every connection
    // opened here was closed); a separate errand process never sees that, as a user's would not.
    const r = await errand(["demo", "--json"], { ERRAND_HOME: mkdtempSync(join(tmpdir(), "errand-demo-json-")) });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const body = JSON.parse(r.stdout) as { ok: boolean; status: string; data: { runs: { status: string }[] } };
    assert.equal(body.ok, true);
    assert.equal(body.status, "PASS");
    assert.deepEqual(
      body.data.runs.map((run) => run.status),
      ["PASS", "PASS", "BLOCKED"],
    );
  });
});
