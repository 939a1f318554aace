// Declared secrets end to end through the real processes: `errand secret set`, `errand run`,
// `errand submit` + `errand runner` + `errand collect`, and `errand serve` (REST), against a counting
// local site. Canaries are searched case-insensitively with whitespace removed (and percent-decoded,
// and in base64) in every stream, every HTTP answer and every file under ERRAND_HOME.
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { TOOLS } from "../../src/interfaces/http/mcp/toolList.js";
import { runErrand, startServe } from "../support/errandProcess.js";
import type { ErrandRun } from "../support/errandProcess.js";
import { carriesCanary, startSecretSites } from "./support/secretSites.js";
import type { SecretSites } from "./support/secretSites.js";

// A canary with a space (doubled and collapsed by the page), declared from a file with a trailing newline.
const CANARY = "Canary Tr1ck Zq9w";
const OWNER_CANARY = "Owner-Canary-Password-31337";
const KERNEL_CANARY = "kernel-canary-key-8080";
const scratch = mkdtempSync(join(tmpdir(), "errand-secret-e2e-"));
let sites: SecretSites;
const streams: string[] = [];

before(async () => {
  sites = await startSecretSites();
});
after(async () => {
  await sites.close();
  rmSync(scratch, { recursive: true, force: true });
});

function homeFor(name: string): { home: string; env: Record<string, string> } {
  const home = join(scratch, name);
  // ERRAND_OWNER_APPROVAL=none: these tests are about the secret's path, not the owner's approval step (issue 11).
  return {
    home,
    env: { ERRAND_HOME: home, ERRAND_RETRY_DELAY_MS: "200", ERRAND_OWNER_APPROVAL: "none", ERRAND_OWNER_PASSWORD: OWNER_CANARY, KERNEL_API_KEY: KERNEL_CANARY },
  };
}

function allowArgs(): string[] {
  return ["--allow-private", sites.portal.hostPort, "--allow-private", sites.evil.hostPort];
}

async function errand(args: string[], env: Record<string, string>, stdin = ""): Promise<ErrandRun> {
  const run = await runErrand(args, { env, stdin });
  streams.push(run.stdout, run.stderr);
  return run;
}

function taskFile(dir: string, task: Record<string, unknown>): string {
  const file = join(dir, `${randomUUID()}.json`);
  // Pinned to local: KERNEL_API_KEY is set (as a canary), which makes Kernel a configured, unverified provider for "auto".
  writeFileSync(file, JSON.stringify({ schemaVersion: "errand.task.v1", operationId: randomUUID(), provider: "local", ...task }));
  return file;
}

function echoTask(origin: string): Record<string, unknown> {
  return {
    target: { url: `${origin}/echo` },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    evidenceRetention: "full",
    steps: [
      { action: "fill_secret", selector: "#password", secret: "portal_pw" },
      { action: "click", selector: "#show" },
      { action: "extract_text", selector: "#upper", name: "upper" },
      { action: "extract_text", selector: "#split", name: "split" },
      { action: "extract_text", selector: "#spaced", name: "spaced" },
      { action: "extract_text", selector: "#plain", name: "plain" },
      { action: "extract_text", selector: "#partial", name: "partial" },
      { action: "expect_text", selector: "#plain", text: "value:" },
      { action: "expect_text", selector: "#upper", text: "this is not on the page", timeoutMs: 500 },
    ],
  };
}

/** Every file under `dir`, read as bytes (latin1), so the database, its WAL and the keys are searched too. */
function everyFile(dir: string): { path: string; text: string }[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path).toString("latin1") }));
}

function assertNoCanaries(home: string, extra: string[] = []): void {
  // The value without its first character, as a page that echoes a partial value shows it, is a leak too.
  for (const canary of [CANARY, CANARY.slice(1), OWNER_CANARY, KERNEL_CANARY]) {
    for (const [index, text] of [...streams, ...extra].entries())
      assert.ok(!carriesCanary(text, canary), `stream ${index} carries ${canary}: ${text.slice(0, 300)}`);
    for (const file of everyFile(home)) assert.ok(!carriesCanary(file.text, canary), `${file.path} carries ${canary}`);
  }
}

async function declare(env: Record<string, string>, dir: string): Promise<void> {
  const file = join(dir, "portal.secret");
  writeFileSync(file, `${CANARY}\n`);
  const set = await errand(["secret", "set", "portal_pw", "--site", sites.portal.origin, "--from-file", file], env);
  assert.equal(set.code, 0, set.stderr);
}

describe("declared secrets end to end", () => {
  test("errand run: the echoing page (upper-case, split, spaced, URL echo, failed check, all but its first character) leaks the canary into no stream and no file", async () => {
    const { home, env } = homeFor("run");
    await declare(env, scratch);
    const receiptOut = join(scratch, "receipt.json");
    const file = taskFile(scratch, echoTask(sites.portal.origin));
    const run = await errand(["run", file, ...allowArgs(), "--json", "--receipt-out", receiptOut], env);
    assert.equal(run.code, 1, run.stderr);
    const receipt = (
      JSON.parse(run.stdout) as {
        receipt: {
          status: string;
          error: { code: string };
          outputs: Record<string, { untrusted: true; text: string }>;
          finalUrl: { untrusted: true; text: string };
          checks: { observed?: { untrusted: true; text: string } }[];
        };
      }
    ).receipt;
    assert.equal(receipt.error.code, "expectation_failed");
    for (const name of ["upper", "split", "spaced", "plain", "partial"]) assert.match(receipt.outputs[name]?.text ?? "", /\[REDACTED\]/, name);
    assert.match(receipt.finalUrl.text, /\[REDACTED\]/);
    assert.match(receipt.checks.at(-1)?.observed?.text ?? "", /\[REDACTED\]/);
    const readable = await errand(["run", file, ...allowArgs()], env);
    assert.match(readable.stdout, /REDACTED/);
    assertNoCanaries(home, [readFileSync(receiptOut, "utf8")]);
    assert.ok(
      sites.portal.received.some((r) => r.url.startsWith("/echo")),
      "the task did reach the bound site",
    );
  });

  test("errand run with evidence.screenshots final, then errand artifact get: the image is written with the receipt's hash; the canary is in no stream, file or image; a page echoing the secret gets no screenshot", async () => {
    const { home, env } = homeFor("screenshots");
    await declare(env, scratch);
    const file = taskFile(scratch, {
      target: { url: `${sites.portal.origin}/login-ok` },
      risk: "reversible_write",
      approved: true,
      secretApproval: true,
      evidenceRetention: "full",
      evidence: { screenshots: "final" },
      steps: [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "Signed in" },
      ],
    });
    const run = await errand(["run", file, ...allowArgs(), "--json"], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const receipt = (JSON.parse(run.stdout) as { receipt: { operationId: string; artifacts: { index: number; sha256: string; bytes: number }[] } }).receipt;
    const record = receipt.artifacts[0];
    assert.ok(record !== undefined, run.stdout);
    const out = join(scratch, "shot.png");
    const got = await errand(["artifact", "get", receipt.operationId, "0", "-o", out, "--json"], env);
    assert.equal(got.code, 0, got.stdout + got.stderr);
    const image = readFileSync(out);
    assert.equal(createHash("sha256").update(image).digest("hex"), record.sha256);
    assert.equal((JSON.parse(got.stdout) as { data: { sha256: string } }).data.sha256, record.sha256);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    const missing = await errand(["artifact", "get", receipt.operationId, "1", "-o", join(scratch, "none.png"), "--json"], env);
    assert.equal(missing.code, 1);
    assert.equal((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, "artifact_not_found");

    const echo = taskFile(scratch, { ...echoTask(sites.portal.origin), evidence: { screenshots: "final" } });
    const echoed = await errand(["run", echo, ...allowArgs(), "--json"], env);
    const echoReceipt = (JSON.parse(echoed.stdout) as { receipt: { artifacts: unknown[]; artifactsOmitted?: string } }).receipt;
    assert.deepEqual(echoReceipt.artifacts, []);
    assert.match(echoReceipt.artifactsOmitted ?? "", /shows a declared secret/);
    assertNoCanaries(home, [image.toString("latin1")]);
  });

  test("errand run: undeclared names (errand's owner password, a provider key) are BLOCKED before any browser opens; nothing reaches a site", async () => {
    const { home, env } = homeFor("undeclared");
    const connections = sites.portal.connections() + sites.evil.connections();
    for (const name of ["ERRAND_OWNER_PASSWORD", "KERNEL_API_KEY"]) {
      for (const field of ["secret", "envVar"]) {
        const file = taskFile(scratch, {
          target: { url: `${sites.evil.origin}/login` },
          risk: "reversible_write",
          approved: true,
          secretApproval: true,
          steps: [
            { action: "fill_secret", selector: "#password", [field]: name },
            { action: "click", selector: "#go" },
          ],
        });
        const run = await errand(["run", file, ...allowArgs(), "--json"], env);
        assert.equal(run.code, 4, run.stdout + run.stderr);
        // Refused at submit, before the owner is asked: no operation, no receipt, the name in the message.
        const answer = JSON.parse(run.stdout) as { receipt: unknown; error: { code: string; message: string } };
        assert.equal(answer.error.code, "secret_unknown");
        assert.equal(answer.receipt, null);
        assert.match(answer.error.message, new RegExp(`secret ${name}, which the owner has not declared`));
      }
    }
    assert.equal(sites.portal.connections() + sites.evil.connections(), connections, "no connection reached either site");
    assertNoCanaries(home);
  });

  test("errand run: a form on the bound site posting to another allowed origin, and a script exfiltrating the value, deliver nothing there", async () => {
    const { home, env } = homeFor("egress");
    await declare(env, scratch);
    const before = sites.evil.received.length;
    const cross = taskFile(scratch, {
      target: { url: `${sites.portal.origin}/login-cross` },
      risk: "reversible_write",
      approved: true,
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "never", timeoutMs: 500 },
      ],
    });
    const crossRun = await errand(["run", cross, ...allowArgs(), "--json"], env);
    const crossReceipt = (JSON.parse(crossRun.stdout) as { receipt: { status: string; error: { code: string }; network: { secretEgressBlocked: number } } })
      .receipt;
    assert.equal(crossReceipt.error.code, "secret_egress_blocked", crossRun.stdout);
    assert.ok(crossReceipt.network.secretEgressBlocked >= 1);
    assert.equal(sites.evil.received.length, before, "nothing reached the other origin");
    const exfil = taskFile(scratch, {
      target: { url: `${sites.portal.origin}/exfil` },
      risk: "reversible_write",
      approved: true,
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "expect_text", selector: "#done", text: "sent" },
        { action: "wait_for", selector: "#never", timeoutMs: 2_000 },
      ],
    });
    const exfilRun = await errand(["run", exfil, ...allowArgs(), "--json"], env);
    const exfilReceipt = (JSON.parse(exfilRun.stdout) as { receipt: { network: { secretEgressBlocked: number } } }).receipt;
    assert.ok(exfilReceipt.network.secretEgressBlocked >= 8, exfilRun.stdout.slice(0, 500));
    assert.ok(!carriesCanary(sites.evil.everything(), CANARY), `the evil origin received the canary: ${sites.evil.everything().slice(0, 1500)}`);
    assert.equal(sites.evil.udpDatagrams.length, 0);
    assertNoCanaries(home);
  });

  test("errand submit, runner and collect: the same scrubbing on the runner path", async () => {
    const { home, env } = homeFor("runner");
    await declare(env, scratch);
    const file = taskFile(scratch, echoTask(sites.portal.origin));
    const submitted = await errand(["submit", file, "--json"], env);
    assert.equal(submitted.code, 0, submitted.stderr);
    const id = (JSON.parse(readFileSync(file, "utf8")) as { operationId: string }).operationId;
    const runner = await errand(["runner", ...allowArgs()], env);
    assert.equal(runner.code, 0, runner.stderr);
    const collected = await errand(["collect", id, "--json"], env);
    assert.match(collected.stdout, /REDACTED/);
    assert.match(collected.stdout, /expectation_failed/);
    const journal = await errand(["journal", "verify", "--json"], env);
    assert.equal(journal.code, 0, journal.stdout);
    assertNoCanaries(home);
  });

  test("errand serve: REST runs a task with a declared secret and answers scrubbed; neither REST nor MCP offers any way to read, list, set or delete secrets", async () => {
    const { home, env } = homeFor("serve");
    await declare(env, scratch);
    const token = (await errand(["token", "create", "--name", "e2e"], env)).stdout.trim();
    const served = await startServe(allowArgs(), { env });
    try {
      const { origin } = served;
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${origin}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        streams.push(text);
        return { status: response.status, text };
      };
      const task = { schemaVersion: "errand.task.v1", operationId: randomUUID(), provider: "local", ...echoTask(sites.portal.origin) };
      assert.equal((await call("POST", "/v1/operations", task)).status, 201);
      await call("POST", "/v1/runner", { waitSeconds: 60 });
      const collected = await call("POST", `/v1/operations/${String(task.operationId)}/collect`, { waitSeconds: 30 });
      assert.match(collected.text, /REDACTED/);
      assert.match(collected.text, /expectation_failed/);
      for (const path of ["/v1/secrets", "/v1/secrets/portal_pw"]) {
        for (const method of ["GET", "POST", "PUT", "DELETE"])
          assert.equal((await call(method, path, method === "GET" || method === "DELETE" ? undefined : { value: "x" })).status, 404, `${method} ${path}`);
      }
      const openapi = await call("GET", "/v1/openapi.json");
      const paths = Object.keys((JSON.parse(openapi.text) as { paths?: Record<string, unknown> }).paths ?? {});
      assert.ok(paths.length > 0 && !paths.some((path) => /secret/i.test(path)), `no secret path in the API: ${paths.join(" ")}`);
    } finally {
      await served.stop();
    }
    streams.push(served.stdout(), served.stderr());
    assert.deepEqual(
      TOOLS.map((tool) => tool.name).filter((name) => /secret/i.test(name)),
      [],
      "no MCP tool manages secrets",
    );
    assertNoCanaries(home);
  });
});
