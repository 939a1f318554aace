// errand serve works errands on its own (issue 13): real `errand serve` processes, real Chromium,
// a counting site on 127.0.0.1, the REST API with an API token. No call ever runs the queue:
// whatever happens is the worker pool's doing. Bounds are generous; the machine may be loaded.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startRecordingServer } from "../../fixtures/fixtureSite.js";
import type { FixtureServer } from "../../fixtures/fixtureSite.js";
import { startServe } from "../../support/errandProcess.js";
import { runErrandInProcess } from "../../support/errandInProcess.js";
import type { ErrandRun, ServedErrand } from "../../support/errandProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-serve-workers-"));
const PASSWORD = "a long owner password";

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** The counting site: how often each page was asked for, and how many slow requests were in flight at most. */
let site: FixtureServer;
let inFlight = 0;
let maxInFlight = 0;
let flakyServed = 0;
/** Slow pages answer after this long (ms), so attempts overlap when they run in parallel. */
const SLOW_MS = 3_000;

before(async () => {
  site = await startRecordingServer("127.0.0.1", {
    "/flaky": (_req, res) => {
      flakyServed += 1;
      if (flakyServed === 1) res.writeHead(503, { "content-type": "text/html" }).end(page("Down", "<h1>Service unavailable</h1>"));
      else res.writeHead(200, { "content-type": "text/html" }).end(page("Flaky", "<h1>Flaky OK</h1>"));
    },
    "/slow": (_req, res) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(200, { "content-type": "text/html" }).end(page("Slow", '<h1 id="v">Slow done</h1>'));
      }, SLOW_MS);
    },
    "/value": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page("Value", '<p id="price">42.17 EUR</p>')),
    "/plain": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page("Plain", "<h1>Plain page</h1>")),
  });
});
after(async () => {
  await site.close();
  rmSync(scratch, { recursive: true, force: true });
});

function baseEnv(errandHome: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env["PATH"] ?? "",
    ERRAND_HOME: errandHome,
    ERRAND_OWNER_PASSWORD: PASSWORD,
    ERRAND_ALLOW_PRIVATE: site.origin.slice("http://".length),
    ERRAND_RETRY_DELAY_MS: "500",
    ...extra,
  };
}

/** `errand ...args` in process: another process than the server's, as the owner's shell would be. */
function errand(errandHome: string, args: string[], extra: Record<string, string> = {}, stdin = ""): Promise<ErrandRun> {
  return runErrandInProcess(args, { env: baseEnv(errandHome, extra), stdin });
}

function serve(errandHome: string, extra: Record<string, string> = {}): Promise<ServedErrand> {
  return startServe([], { env: baseEnv(errandHome, extra), startTimeoutMs: 60_000 });
}

async function apiToken(errandHome: string, scope: "own" | "all" = "own"): Promise<string> {
  const created = await errand(errandHome, ["token", "create", "--name", "test", "--scope", scope]);
  assert.equal(created.code, 0, created.stderr);
  return created.stdout.trim();
}

function task(path: string, steps: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> & { operationId: string } {
  return { schemaVersion: "errand.task.v1", operationId: randomUUID(), risk: "read_only", target: { url: `${site.origin}${path}` }, steps, ...extra };
}

interface Collected {
  status: string;
  receipt?: { status: string; attempts: number; error: { code: string } | null; retry?: { decision: string; reason: string } };
  pageContent?: { values: { name: string; text: string }[] };
}

function rest(served: ServedErrand, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return {
    async submit(body: unknown): Promise<void> {
      const response = await fetch(`${served.origin}/v1/operations`, { method: "POST", headers, body: JSON.stringify(body) });
      assert.ok(response.status === 201 || response.status === 200, await response.text());
    },
    async collect(operationId: string, waitSeconds: number): Promise<Collected> {
      const response = await fetch(`${served.origin}/v1/operations/${operationId}/collect`, { method: "POST", headers, body: JSON.stringify({ waitSeconds }) });
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as Collected;
    },
  };
}

describe("errand serve works errands on its own", { timeout: 600_000 }, () => {
  test("a read-only page that fails once (503) ends PASS on attempt 2 with no further call; a failed expectation on a loaded page is not retried", async () => {
    const h = join(scratch, "flaky");
    const token = await apiToken(h);
    const served = await serve(h);
    try {
      const api = rest(served, token);
      const flaky = task("/flaky", [{ action: "expect_text", text: "Flaky OK" }]);
      await api.submit(flaky);
      const collected = await api.collect(flaky.operationId, 90);
      assert.equal(collected.status, "completed", JSON.stringify(collected));
      assert.equal(collected.receipt?.status, "PASS");
      assert.equal(collected.receipt?.attempts, 2);
      assert.equal(site.count("/flaky"), 2, "one failed request, one that passed");

      // An expectation that fails on a page that loaded fine is final at once: one request, one attempt.
      const plainBefore = site.count("/plain");
      const wrong = task("/plain", [{ action: "expect_text", text: "Not on this page", timeoutMs: 1_500 }]);
      await api.submit(wrong);
      const failed = await api.collect(wrong.operationId, 90);
      assert.equal(failed.receipt?.status, "FAIL", JSON.stringify(failed));
      assert.equal(failed.receipt?.attempts, 1);
      assert.equal(failed.receipt?.retry?.decision, "final");
      assert.match(failed.receipt?.retry?.reason ?? "", /expectation did not hold/);
      assert.equal(site.count("/plain") - plainBefore, 1, "not retried");
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("three slow tasks with ERRAND_CONCURRENCY=3 run at once and finish in about one task's time", async () => {
    const h = join(scratch, "parallel");
    const token = await apiToken(h);
    const served = await serve(h, { ERRAND_CONCURRENCY: "3" });
    try {
      const api = rest(served, token);
      // One task alone first: it warms the browser and measures one task's time on this machine now.
      const alone = task("/slow", [{ action: "expect_text", text: "Slow done" }]);
      const soloStarted = Date.now();
      await api.submit(alone);
      assert.equal((await api.collect(alone.operationId, 110)).receipt?.status, "PASS");
      const oneTaskMs = Date.now() - soloStarted;

      maxInFlight = 0;
      const three = [0, 1, 2].map(() => task("/slow", [{ action: "expect_text", text: "Slow done" }]));
      const started = Date.now();
      await Promise.all(three.map((t) => api.submit(t)));
      const results = await Promise.all(three.map((t) => api.collect(t.operationId, 110)));
      const elapsed = Date.now() - started;
      assert.deepEqual(
        results.map((r) => r.receipt?.status),
        ["PASS", "PASS", "PASS"],
      );
      assert.equal(maxInFlight, 3, "the site saw all three slow requests at once");
      assert.ok(elapsed < 2 * oneTaskMs + 2_000, `three tasks took ${elapsed} ms; one alone took ${oneTaskMs} ms`);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("a task submitted while no server runs is completed once errand serve starts, with no call", async () => {
    const h = join(scratch, "resume");
    // The owner submits on the host; an operator token sees the owner's operations.
    const token = await apiToken(h, "all");
    const queued = task("/plain", [{ action: "expect_text", text: "Plain page" }]);
    const submitted = await errand(h, ["submit", "-", "--json"], {}, JSON.stringify(queued));
    assert.equal(submitted.code, 0, submitted.stderr);
    const served = await serve(h);
    try {
      const collected = await rest(served, token).collect(queued.operationId, 90);
      assert.equal(collected.receipt?.status, "PASS", JSON.stringify(collected));
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("collect after the client stopped waiting returns the extracted value, from the server and from errand collect in another process", async () => {
    const h = join(scratch, "held");
    const token = await apiToken(h);
    const served = await serve(h);
    try {
      const api = rest(served, token);
      const priced = task("/value", [
        { action: "extract_text", selector: "#price", name: "price" },
        { action: "expect_text", text: "EUR" },
      ]);
      await api.submit(priced);
      const impatient = await api.collect(priced.operationId, 0);
      assert.equal(impatient.status, "pending", "the client gives up before the receipt exists");
      const later = await api.collect(priced.operationId, 90);
      assert.equal(later.receipt?.status, "PASS", JSON.stringify(later));
      assert.deepEqual(
        later.pageContent?.values.map((v) => [v.name, v.text]),
        [["price", "42.17 EUR"]],
      );
      const again = await api.collect(priced.operationId, 0);
      assert.deepEqual(
        again.pageContent?.values.map((v) => v.text),
        ["42.17 EUR"],
        "every collect within ERRAND_RESULT_TTL gets it",
      );
      const cli = await errand(h, ["collect", priced.operationId, "--json"]);
      const envelope = JSON.parse(cli.stdout) as { data: { ephemeral?: { outputs: Record<string, string> } } };
      assert.deepEqual(envelope.data.ephemeral?.outputs, { price: "42.17 EUR" }, cli.stdout + cli.stderr);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("SIGTERM during an attempt loses nothing: the attempt finishes, its receipt is stored, the server exits 0", async () => {
    const h = join(scratch, "sigterm");
    const token = await apiToken(h);
    const served = await serve(h);
    const slowBefore = site.count("/slow");
    const slow = task("/slow", [{ action: "expect_text", text: "Slow done" }]);
    await rest(served, token).submit(slow);
    // Wait until the browser's request reached the site: the attempt is under way.
    const deadline = Date.now() + 90_000;
    while (site.count("/slow") === slowBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(site.count("/slow") > slowBefore, "the attempt started");
    assert.equal(await served.stop(), 0, served.stderr());
    assert.match(served.stderr(), /stopping; no new attempt starts/);
    const collected = await errand(h, ["collect", slow.operationId, "--json"]);
    const envelope = JSON.parse(collected.stdout) as { status: string; receipt?: { attempts: number } };
    assert.equal(envelope.status, "PASS", collected.stdout + collected.stderr + served.stderr());
    assert.equal(envelope.receipt?.attempts, 1);
  });
});
