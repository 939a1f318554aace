// errand provider list / smoke and errand status (in process), and errand runner as real processes
// (two at once sharing one SQLite file), with the cloud adapters pointed at their loopback emulators
// (each session a real Chromium).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import type { Receipt } from "../../../src/receipt/receiptTypes.js";
import type { ProviderStatus } from "../../../src/router/describeProvider.js";
import type { RunQueueReport } from "../../../src/runner/runnerTypes.js";
import { startFixtureSites } from "../../fixtures/fixtureSite.js";
import { startKernelEmulator } from "../../fixtures/providerEmulators/kernelEmulator.js";
import type { ProviderEmulator } from "../../fixtures/providerEmulators/providerEmulator.js";
import { openHarness } from "../../operations/support/harness.js";
import { errandInProcess } from "../../support/errandInProcess.js";
import type { Sites } from "../../providers/providerContract.js";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "errand-provider-cli-"));
let sites: Sites;
let kernel: ProviderEmulator;

before(async () => {
  sites = await startFixtureSites();
  kernel = await startKernelEmulator();
});
after(async () => {
  await kernel.close();
  await sites.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `errand ...args` in process, with PATH and `env` only. */
function errand(args: string[], env: Record<string, string>): Promise<Run> {
  return errandInProcess(args, { PATH: process.env["PATH"] ?? "", ...env });
}

/** `errand ...args` as a real process, with PATH and `env` only. */
function errandProcess(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let homes = 0;
function freshHome(): string {
  homes += 1;
  return join(scratch, `home-${homes}`);
}

function taskFile(partial: Record<string, unknown>): string {
  const file = join(scratch, `${randomUUID()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      schemaVersion: "errand.task.v1",
      operationId: randomUUID(),
      risk: "read_only",
      target: { url: `${sites.site.origin}/` },
      timeouts: { taskMs: 20_000 },
      ...partial,
    }),
  );
  return file;
}

const allow = () => ["--allow-private", sites.site.origin.slice("http://".length)];

async function states(env: Record<string, string>): Promise<Record<string, ProviderStatus>> {
  const listed = await errand(["provider", "list", "--json"], env);
  assert.equal(listed.code, 0, listed.stderr);
  const parsed = JSON.parse(listed.stdout) as { data: { providers: ProviderStatus[] } };
  return Object.fromEntries(parsed.data.providers.map((p) => [p.name, p]));
}

describe("errand provider", () => {
  test("smoke promotes a provider to OPERATIONAL only on PASS: a FAIL leaves it UNVERIFIED, and a later FAIL takes OPERATIONAL back", async () => {
    const home = freshHome();
    const env = { ERRAND_HOME: home, ...kernel.env };
    // provider list only reads: it never creates a key, so the home is started first (as any write command would).
    await (await openHarness({ home })).store.close();
    const before = await states(env);
    assert.deepEqual(Object.keys(before), ["kernel", "browserless", "browserbase", "steel", "local"]);
    assert.equal(before["kernel"]?.state, "UNVERIFIED");
    assert.equal(before["browserless"]?.state, "UNCONFIGURED");

    const failing = taskFile({ steps: [{ action: "expect_text", text: "Not on the page", selector: "#title", timeoutMs: 500 }] });
    const failed = await errand(["provider", "smoke", "kernel", "--task", failing, ...allow(), "--json"], env);
    assert.equal(failed.code, 1, failed.stderr);
    const failedReceipt = (JSON.parse(failed.stdout) as { receipt: Receipt }).receipt;
    assert.equal(failedReceipt.status, "FAIL");
    assert.equal(failedReceipt.provider, "kernel");
    assert.match(failed.stderr, /kernel did not pass its smoke \(FAIL, expectation_failed\); it is UNVERIFIED/);
    const afterFail = await states(env);
    assert.equal(afterFail["kernel"]?.state, "UNVERIFIED");
    assert.equal(afterFail["kernel"]?.lastSmoke?.status, "FAIL");

    const passing = taskFile({ steps: [{ action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" }] });
    const passed = await errand(["provider", "smoke", "kernel", "--task", passing, ...allow()], env);
    assert.equal(passed.code, 0, passed.stderr);
    assert.match(passed.stdout, /^PASS/);
    assert.match(passed.stderr, /kernel passed its smoke and is now OPERATIONAL/);
    const smokeId = /operation {3}([0-9a-f-]{36})/.exec(passed.stdout)?.[1];
    assert.ok(smokeId !== undefined && smokeId !== failedReceipt.operationId, "each smoke is its own operation");
    const promoted = await states(env);
    assert.equal(promoted["kernel"]?.state, "OPERATIONAL");
    assert.equal(promoted["kernel"]?.verified, true);
    assert.equal(promoted["kernel"]?.budget?.unit, "gb_second");
    assert.ok((promoted["kernel"]?.budget?.used ?? 0) > 0, "the smokes' GB-seconds are booked");

    const demoted = await errand(["provider", "smoke", "kernel", "--task", failing, ...allow()], env);
    assert.equal(demoted.code, 1);
    assert.equal((await states(env))["kernel"]?.state, "UNVERIFIED", "the latest smoke decides");

    const refused = await errand(["provider", "smoke", "browserless", "--task", passing, ...allow()], env);
    assert.equal(refused.code, 4, "an unconfigured provider's smoke is BLOCKED");
    assert.match(refused.stderr, /did not reach browserless .*state is unchanged/);
    const write = taskFile({
      risk: "reversible_write",
      approved: true,
      steps: [
        { action: "click", selector: "#to-form" },
        { action: "expect_text", text: "x" },
      ],
    });
    const usage = await errand(["provider", "smoke", "kernel", "--task", write], env);
    assert.equal(usage.code, 2, "a smoke must be read_only");
  });

  test("errand status shows each cloud provider's usage against its cap", async () => {
    const home = freshHome();
    const env = { ERRAND_HOME: home, ...kernel.env, ERRAND_BUDGET_BROWSERLESS_UNITS: "50" };
    const smoke = await errand(
      ["provider", "smoke", "kernel", "--task", taskFile({ steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }), ...allow()],
      env,
    );
    assert.equal(smoke.code, 0, smoke.stderr);
    const text = await errand(["status"], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /usage {7}kernel: \d+ of 299999 gb_second this month \(resets \d{4}-\d\d-01T00:00:00.000Z\); 1 session\(s\), \d+ s; 0 of 5 slot\(s\) in use/,
    );
    assert.match(text.stdout, /usage {7}browserless: 0 of 50 browserless_unit this month/);
    assert.match(text.stdout, /usage {7}steel: 0 of 18000 browser_minute in all \(one-time credit\)/);
    const json = (
      JSON.parse((await errand(["status", "--json"], env)).stdout) as {
        data: { usage: { provider: string; sessions: number; limit: number }[]; store: unknown };
      }
    ).data;
    assert.ok(json.store !== undefined, "the existing report is unchanged");
    assert.deepEqual(
      json.usage.map((u) => [u.provider, u.sessions, u.limit]),
      [
        ["kernel", 1, 299_999],
        ["browserless", 0, 50],
        ["browserbase", 0, 60],
        ["steel", 0, 18_000],
      ],
    );
  });

  test("concurrency caps hold across 2 runner processes sharing one SQLite file: never more live sessions than the cap", async () => {
    const home = freshHome();
    // A task waits for a slot at most ERRAND_SLOT_WAIT_MS (default 10 s) and a third of its time. On a
    // loaded machine a session here takes about 6 s, so the default wait could leave the fourth task
    // BLOCKED provider_capacity behind the other three; the cap, not the wait, is what this tests.
    const env = { ERRAND_HOME: home, ...kernel.env, ERRAND_CONCURRENCY_KERNEL: "1", ERRAND_SLOT_WAIT_MS: "60000" };
    const sessionsBefore = new Set(kernel.core.sessions.keys());
    const h = await openHarness({ home });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 4; i += 1) {
        // Pinned to kernel (no smoke needed); the page adds #late after 300 ms, so each session lasts a while.
        const task = {
          schemaVersion: "errand.task.v1",
          operationId: randomUUID(),
          risk: "read_only",
          provider: "kernel",
          target: { url: `${sites.site.origin}/late` },
          timeouts: { taskMs: 120_000 },
          steps: [
            { action: "wait_for", selector: "#late" },
            { action: "expect_text", text: "arrived", selector: "#late", match: "exact" },
          ],
        };
        const submitted = await h.service.submit(task);
        assert.ok(submitted.ok, JSON.stringify(submitted));
        ids.push(task.operationId);
      }
    } finally {
      await h.store.close();
    }
    const runners = await Promise.all([0, 1].map(() => errandProcess(["runner", "--json", ...allow()], env)));
    const reports = runners.map((r) => {
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { data: RunQueueReport }).data;
    });
    assert.equal(
      reports.reduce((n, r) => n + r.attempts.length, 0),
      4,
      reports.map((r) => r.attempts.length).join("/"),
    );
    assert.ok(
      reports.every((r) => r.attempts.length > 0),
      "both runners worked",
    );

    const sessions = [...kernel.core.sessions.values()].filter((s) => !sessionsBefore.has(s.id));
    assert.equal(sessions.length, 4, "one session per operation");
    const edges = sessions.flatMap((s) => [
      { at: s.createdAt, delta: 1 },
      { at: s.endedAt ?? Number.MAX_SAFE_INTEGER, delta: -1 },
    ]);
    edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let live = 0;
    let most = 0;
    for (const edge of edges) {
      live += edge.delta;
      most = Math.max(most, live);
    }
    assert.equal(most, 1, "the cap of 1 held although two runners ran at once");

    // The attempt history, as inspect derives it from the journal.
    const reader = await openHarness({ home });
    const attempts: { runnerId: string; startedMs: number; endedMs: number; outcome: string | null }[] = [];
    try {
      for (const id of ids) {
        const inspected = await reader.service.inspect(id);
        assert.ok(inspected.ok && "attempts" in inspected, JSON.stringify(inspected));
        for (const a of inspected.attempts)
          attempts.push({ runnerId: a.runnerId, startedMs: a.startedMs, endedMs: a.endedMs ?? Number.MAX_SAFE_INTEGER, outcome: a.outcome });
      }
    } finally {
      await reader.store.close();
    }
    const db = openSqliteDatabase(join(home, "errand.db"), { readonly: true });
    try {
      assert.deepEqual(
        attempts.map((a) => a.outcome),
        ["PASS", "PASS", "PASS", "PASS"],
      );
      const overlapping = attempts.some((a) =>
        attempts.some((b) => a !== b && a.runnerId !== b.runnerId && a.startedMs < b.endedMs && b.startedMs < a.endedMs),
      );
      assert.ok(overlapping, "the two runners really held attempts at the same time (one waited for the slot)");
      const slots = db.prepare("SELECT count(*) AS n FROM provider_slots").get() as { n: number };
      assert.equal(slots.n, 0, "every slot was released");
      const usage = db.prepare("SELECT count(*) AS n FROM provider_usage WHERE provider = 'kernel' AND source = 'measured'").get() as { n: number };
      assert.equal(usage.n, 4, "each attempt's usage was booked");
    } finally {
      db.close();
    }
  });
});
