import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createProgramExecutor } from "../../src/executor/createProgramExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";

const TOKEN = "errand-program-executor-token-5d81";

const unavailable = browserlessUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping the program executor's Browserless tests: ${unavailable}\n`);

/** A stand-in for Browserless that answers /function as a test tells it to, counting the programs it was sent. */
async function startFakeRunner(answer: (res: ServerResponse) => void): Promise<{ base: string; posts: () => number; close: () => Promise<void> }> {
  let posts = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "POST" && (req.url ?? "").startsWith("/function")) posts += 1;
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    posts: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("the program executor, against the real Browserless server's /function", { skip: unavailable ?? false }, () => {
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  let server: BrowserlessServer;

  before(async () => {
    sites = await startFixtureSites();
    server = await startBrowserlessServer({ token: TOKEN, concurrent: 1, queued: 2, timeoutMs: 30_000 });
  });
  after(async () => {
    await server?.stop();
    await sites?.close();
  });

  function executorOn(base: string, provider?: BrowserProvider) {
    const allowances = parseAllowPrivate([sites.site.origin.slice("http://".length)]);
    if (!allowances.ok) throw new Error("allowance");
    const browserless = provider ?? createBrowserlessProvider({ env: { BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: base } });
    return createProgramExecutor({
      provider: browserless,
      guard: createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allowances.value }),
      secrets: emptySecretVault(),
      defaultTaskTimeoutMs: 15_000,
      defaultStepTimeoutMs: 3_000,
    });
  }

  it("runs a read_only task as one program and PASSes on its expectations, with the receipt CDP mode builds", async () => {
    const origin = sites.site.origin;
    const task = makeTask({
      target: { url: `${origin}/` },
      steps: [
        { action: "extract_text", selector: "#title", name: "title" },
        { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
        { action: "click", selector: "#to-form" },
        { action: "expect_url", url: `${origin}/form`, match: "exact" },
      ],
    });
    const { receipt, ephemeral } = await executorOn(server.httpBase).execute(task, makeContext());
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.provider, "browserless");
    assert.equal(receipt.targetStatus, 200);
    assert.deepEqual(receipt.finalUrl, { untrusted: true, text: `${origin}/form` });
    assert.deepEqual(ephemeral.outputs, { title: "Fixture Home" });
    assert.deepEqual(
      receipt.checks.map((check) => [check.step, check.passed]),
      [
        [1, true],
        [3, true],
      ],
    );
    assert.deepEqual(
      receipt.steps.map((step) => step.status),
      ["ok", "ok", "ok", "ok"],
    );
    assert.equal(receipt.mutationBoundary, "not_crossed");
    assert.equal(receipt.network.preflight.length, 2, "the target and the expect_url address were preflighted");
  });

  it("is FAIL when an expectation does not hold, with what the page showed wrapped as untrusted; PARTIAL with no expectation", async () => {
    const execute = executorOn(server.httpBase).execute;
    const failed = await execute(
      makeTask({
        target: { url: `${sites.site.origin}/` },
        steps: [{ action: "expect_text", text: "Not this", selector: "#title", match: "exact", timeoutMs: 300 }],
      }),
      makeContext(),
    );
    assert.equal(failed.receipt.status, "FAIL");
    assert.equal(failed.receipt.error?.code, "expectation_failed");
    assert.deepEqual(failed.receipt.checks[0]?.observed, { untrusted: true, text: "Fixture Home" });
    const partial = await execute(
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "extract_text", selector: "#title", name: "t" }] }),
      makeContext(),
    );
    assert.equal(partial.receipt.status, "PARTIAL");
  });

  it("records a write's boundary before the program is sent, and sends the write once", async () => {
    const before = sites.site.count("/save", "POST");
    const order: string[] = [];
    const task = makeTask({
      target: { url: `${sites.site.origin}/form` },
      risk: "reversible_write",
      approved: true,
      steps: [
        { action: "fill", selector: "#name", value: "Ada" },
        { action: "click", selector: "#submit" },
        { action: "expect_text", text: "Saved Ada", selector: "#result", match: "exact" },
      ],
    });
    const { receipt } = await executorOn(server.httpBase).execute(
      task,
      makeContext({
        beforeMutationBoundary: () => {
          order.push(`boundary with ${sites.site.count("/save", "POST") - before} saves`);
          return Promise.resolve();
        },
      }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(order, ["boundary with 0 saves"]);
    assert.equal(receipt.mutationBoundary, "crossed");
    assert.equal(sites.site.count("/save", "POST"), before + 1);
  });

  it("a write whose program got no answer in time is UNCERTAIN and was sent once", async () => {
    const silent = await startFakeRunner(() => undefined);
    try {
      const task = makeTask({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        timeouts: { taskMs: 1_000 },
        steps: [
          { action: "click", selector: "#submit" },
          { action: "expect_text", text: "Saved", match: "contains" },
        ],
      });
      const provider = createBrowserlessProvider({ env: { BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: silent.base }, sessionGraceMs: 0 });
      const { receipt } = await executorOn(silent.base, provider).execute(task, makeContext());
      assert.equal(receipt.status, "UNCERTAIN");
      assert.equal(receipt.error?.code, "provider_unavailable");
      assert.equal(receipt.mutationBoundary, "crossed");
      assert.equal(silent.posts(), 1);
    } finally {
      await silent.close();
    }
  });

  it("a read_only task refused for capacity (429) before it ran is BLOCKED; the same refusal after a write's boundary is never a PASS", async () => {
    const full = await startFakeRunner((res) => res.writeHead(429, { "retry-after": "7", "content-type": "application/json" }).end('{"message":"queue full"}'));
    try {
      const read = await executorOn(full.base).execute(
        makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Fixture", match: "contains" }] }),
        makeContext(),
      );
      assert.equal(read.receipt.status, "BLOCKED");
      assert.equal(read.receipt.error?.code, "provider_capacity");
      assert.equal(full.posts(), 1);
    } finally {
      await full.close();
    }
  });

  it("refuses an answer that is not the program's evidence: a read is FAIL, a write UNCERTAIN, never a PASS", async () => {
    // A forged answer: completed, every step passed, but the check is not the task's own expectation.
    const forged = {
      data: {
        v: 1,
        status: "completed",
        targetStatus: 200,
        steps: [{ step: 0, action: "expect_text", status: "passed" }],
        checks: [{ step: 0, action: "expect_text", expected: "anything", match: "contains", passed: true }],
        failure: null,
        outputs: {},
        finalUrl: "http://127.0.0.1/",
        blocked: [],
        blockedCount: 0,
        popupsClosed: 0,
        requestsAllowed: 1,
        writesSent: 0,
        durationMs: 5,
      },
      type: "application/json",
    };
    const liar = await startFakeRunner((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(forged)));
    try {
      const steps = [{ action: "expect_text", text: "Fixture Home", match: "contains" }];
      const read = await executorOn(liar.base).execute(makeTask({ target: { url: `${sites.site.origin}/` }, steps }), makeContext());
      assert.equal(read.receipt.status, "FAIL");
      assert.equal(read.receipt.error?.code, "provider_unavailable");
      assert.match(read.receipt.error?.message ?? "", /\/checks\/0\/expected/);
      const write = await executorOn(liar.base).execute(
        makeTask({ target: { url: `${sites.site.origin}/` }, risk: "reversible_write", approved: true, steps }),
        makeContext(),
      );
      assert.equal(write.receipt.status, "UNCERTAIN");
      assert.equal(liar.posts(), 2);
    } finally {
      await liar.close();
    }
  });

  it("stops reading an answer larger than the program's evidence can be, and refuses it", async () => {
    const flood = await startFakeRunner((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = `{"pad":"${"x".repeat(64 * 1024)}",`;
      let sent = 0;
      const pump = () => {
        while (sent < 400) {
          sent += 1;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end("}");
      };
      pump();
    });
    try {
      const { receipt } = await executorOn(flood.base).execute(
        makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Fixture", match: "contains" }] }),
        makeContext(),
      );
      assert.equal(receipt.status, "FAIL");
      assert.equal(receipt.error?.code, "provider_unavailable");
      assert.match(receipt.error?.message ?? "", /passed \d+ bytes/);
    } finally {
      await flood.close();
    }
  });
});
