import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";
import { loopbackGuard } from "./loopbackGuard.js";

const SECRET = "s3cr3t value&more/+%";
let sites: Awaited<ReturnType<typeof startFixtureSites>>;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

const task = makeTask;

const context = makeContext;

before(async () => {
  sites = await startFixtureSites();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([sites.site.origin]),
    secrets: memoryVault({ FIXTURE_PASSWORD: { sites: [sites.site.origin], value: SECRET } }),
    defaultTaskTimeoutMs: 15_000,
    defaultStepTimeoutMs: 3_000,
  });
});
after(async () => {
  await provider.shutdown();
  await sites.close();
});

describe("executor on local Chromium", () => {
  test("runs read steps and passes when every expectation held", async () => {
    const { receipt, ephemeral } = await execute(
      task({
        target: { url: `${sites.site.origin}/` },
        steps: [
          { action: "wait_for", selector: "#title" },
          { action: "extract_text", selector: "#title", name: "title" },
          { action: "extract_attribute", selector: "#intro", attribute: "title", name: "tip" },
          { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
          { action: "expect_text", text: "Welcome" },
          { action: "expect_url", url: `${sites.site.origin}/` },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.checks.length, 3);
    assert.ok(receipt.checks.every((c) => c.passed));
    assert.deepEqual(ephemeral.outputs, { title: "Fixture Home", tip: "greeting" });
    assert.equal(receipt.outputs, undefined, "minimal retention keeps extracted values out of the receipt");
    assert.equal(receipt.mutationBoundary, "not_crossed");
  });

  test("is PARTIAL when nothing was expected, and keeps outputs with full retention", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/` }, evidenceRetention: "full", steps: [{ action: "extract_text", selector: "#title", name: "title" }] }),
      context(),
    );
    assert.equal(receipt.status, "PARTIAL");
    assert.deepEqual(receipt.outputs, { title: { untrusted: true, text: "Fixture Home" } }, "kept in the untrusted wrapper");
    assert.match(receipt.providerSessionId ?? "", /^local-/);
  });

  test("fails with expectation_failed and names the step", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Not there", selector: "#title", timeoutMs: 1_500 }] }),
      context(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "expectation_failed");
    assert.equal(receipt.error?.step, 0);
    assert.deepEqual(receipt.checks[0]?.observed, { untrusted: true, text: "Fixture Home" });
  });

  test("waits for late content and runs an approved write with fill, fill_secret, select, type and click", async () => {
    const crossings: number[] = [];
    const { receipt } = await execute(
      task({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        steps: [
          { action: "fill", selector: "#name", value: "Ada" },
          { action: "fill_secret", selector: "#password", secret: "FIXTURE_PASSWORD" },
          { action: "type", selector: "#note", text: "hello" },
          { action: "select", selector: "#color", value: "blue" },
          { action: "click", selector: "#submit" },
          { action: "expect_text", text: "Saved Ada", selector: "#result" },
          { action: "expect_url", url: `${sites.site.origin}/saved`, match: "prefix" },
        ],
      }),
      context({ beforeMutationBoundary: () => Promise.resolve(void crossings.push(Date.now())) }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.mutationBoundary, "crossed");
    assert.equal(crossings.length, 1, "the boundary hook runs once");
    const post = sites.site.hits.filter((h) => h.path === "/save" && h.method === "POST").at(-1);
    assert.ok(post !== undefined && post.body.includes("color=blue") && post.body.includes("note=hello"));
    assert.ok(
      post.body.includes(encodeURIComponent(SECRET).replace(/%20/g, "+")) || post.body.includes(new URLSearchParams({ s: SECRET }).toString().slice(2)),
      "the secret reached the site",
    );
    assert.ok(!JSON.stringify(receipt).includes("s3cr3t"), "the secret is not in the receipt");
  });

  test("select chooses by value (before a label) and by visible label on a read_only task, sending nothing", async () => {
    const before = sites.site.hits.length;
    for (const [value, expected] of [
      ["se", "se"],
      ["Norway", "no"],
    ] as const) {
      const { receipt } = await execute(
        task({
          target: { url: `${sites.site.origin}/choose` },
          steps: [
            { action: "select", selector: "#country", value },
            { action: "expect_text", text: expected, selector: "#shown", match: "exact" },
          ],
        }),
        context(),
      );
      assert.equal(receipt.status, "PASS", `${value}: ${JSON.stringify(receipt.error)}`);
      assert.equal(receipt.mutationBoundary, "not_crossed");
    }
    assert.deepEqual(
      sites.site.hits.slice(before).filter((h) => h.method !== "GET" || (h.path !== "/choose" && h.path !== "/favicon.ico")),
      [],
      "only page loads reached the site",
    );
  });

  test("select by value and by visible label on a write: the site receives the chosen option", async () => {
    for (const [value, sent] of [
      ["no", "country=no"],
      ["Sweden", "country=se"],
    ] as const) {
      const { receipt } = await execute(
        task({
          target: { url: `${sites.site.origin}/choose` },
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "select", selector: "#country", value },
            { action: "click", selector: "#submit" },
            { action: "expect_text", text: "Saved Ada", selector: "#result" },
          ],
        }),
        context(),
      );
      assert.equal(receipt.status, "PASS", `${value}: ${JSON.stringify(receipt.error)}`);
      assert.equal(receipt.mutationBoundary, "crossed");
      const post = sites.site.hits.filter((h) => h.path === "/save" && h.method === "POST").at(-1);
      assert.ok(post?.body.split("&").includes(sent), `${value}: the site received ${post?.body}`);
    }
  });

  test("a write whose select finds no enabled option stops before its boundary, with nothing sent", async () => {
    const saves = sites.site.count("/save");
    for (const value of ["Finland", "Denmark"]) {
      const crossings: number[] = [];
      const { receipt } = await execute(
        task({
          target: { url: `${sites.site.origin}/choose` },
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "select", selector: "#country", value, timeoutMs: 1_000 },
            { action: "click", selector: "#submit" },
          ],
        }),
        context({ beforeMutationBoundary: () => Promise.resolve(void crossings.push(1)) }),
      );
      assert.equal(receipt.status, "BLOCKED", `${value}: ${JSON.stringify(receipt.error)}`);
      assert.equal(receipt.error?.code, "step_failed", JSON.stringify(receipt.error));
      assert.equal(receipt.error?.step, 0);
      assert.match(receipt.error?.message ?? "", /nothing was chosen/);
      assert.equal(receipt.mutationBoundary, "not_crossed");
      assert.equal(crossings.length, 0, `${value}: the boundary hook never ran`);
    }
    assert.equal(sites.site.count("/save"), saves, "nothing was submitted");
  });

  test("press Enter submits a form on a write (in an element and on the focused one)", async () => {
    for (const press of [
      { action: "press", key: "Enter", selector: "#name" },
      { action: "press", key: "Enter" },
    ]) {
      const saves = sites.site.count("/save", "POST");
      const { receipt } = await execute(
        task({
          target: { url: `${sites.site.origin}/form` },
          risk: "reversible_write",
          approved: true,
          steps: [{ action: "fill", selector: "#name", value: "Ada" }, press, { action: "expect_text", text: "Saved Ada", selector: "#result" }],
        }),
        context(),
      );
      assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
      assert.equal(sites.site.count("/save", "POST"), saves + 1);
    }
  });

  test("press Enter on a form in a read_only task sends no POST", async () => {
    const saves = sites.site.count("/save", "POST");
    const { receipt } = await execute(
      task({
        target: { url: `${sites.site.origin}/form` },
        steps: [
          { action: "fill", selector: "#name", value: "Ada" },
          { action: "press", key: "Enter", selector: "#name" },
          { action: "expect_text", text: "Saved", timeoutMs: 800 },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(sites.site.count("/save", "POST"), saves, "the POST never reached the site");
    assert.ok(receipt.network.nonGetAborted >= 1);
  });

  test("scrubs a secret that the page reflects into extracted text", async () => {
    const { receipt, ephemeral } = await execute(
      task({
        target: { url: `${sites.site.origin}/echo-secret-field` },
        secretApproval: true,
        evidenceRetention: "full",
        steps: [
          { action: "fill_secret", selector: "#password", secret: "FIXTURE_PASSWORD" },
          { action: "click", selector: "#show" },
          { action: "extract_text", selector: "#out", name: "out" },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "PARTIAL", JSON.stringify(receipt.error));
    assert.equal(ephemeral.outputs["out"], "[REDACTED]");
    assert.ok(!JSON.stringify({ receipt, ephemeral }).includes("s3cr3t"));
  });

  test("is BLOCKED before the browser when a secret is not declared or approval is absent", async () => {
    const before = sites.site.hits.length;
    const missing = await execute(
      task({
        target: { url: `${sites.site.origin}/form` },
        secretApproval: true,
        steps: [{ action: "fill_secret", selector: "#password", secret: "NOT_DECLARED_ANYWHERE_XYZ" }],
      }),
      context(),
    );
    assert.equal(missing.receipt.status, "BLOCKED");
    assert.equal(missing.receipt.error?.code, "secret_unknown");
    const unapproved = {
      ...task({ target: { url: `${sites.site.origin}/form` }, steps: [{ action: "click", selector: "#submit" }] }),
      risk: "consequential" as const,
    };
    const refused = await execute(unapproved, context());
    assert.equal(refused.receipt.status, "BLOCKED");
    assert.equal(refused.receipt.error?.code, "approval_required");
    assert.equal(sites.site.hits.length, before, "nothing reached the site");
  });

  test("is BLOCKED when the target fails preflight, without opening a browser", async () => {
    const { receipt } = await execute(task({ target: { url: `${sites.other.origin}/` }, steps: [{ action: "expect_text", text: "x" }] }), context());
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "ip_blocked");
    assert.equal(sites.other.hits.length, 0);
  });

  test("times out a step with a coded failure naming the step", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "wait_for", selector: "#never", timeoutMs: 300 }] }),
      context(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "timeout");
    assert.equal(receipt.error?.step, 0);
    assert.match(receipt.error?.message ?? "", /wait_for/);
  });

  test("times out the whole task at its budget", async () => {
    const { receipt } = await execute(
      // The budget leaves the target room to load on a loaded machine, so it runs out during the
      // step's navigation, long before the step's own (much longer) time would.
      task({
        target: { url: `${sites.site.origin}/` },
        timeouts: { taskMs: 6_000 },
        steps: [{ action: "goto", url: `${sites.site.origin}/slow`, timeoutMs: 30_000 }],
      }),
      context(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "task_timeout", "the budget ran out, not the step's own time");
    assert.equal(receipt.error?.timing?.phase, "navigation", JSON.stringify(receipt.error));
    assert.ok(receipt.durationMs < 30_000);
  });

  test("a goto to a host the task does not name is refused as navigation_blocked naming that host, before any lookup of it", async () => {
    const { receipt } = await execute(
      task({
        target: { url: `${sites.site.origin}/` },
        steps: [
          { action: "goto", url: "http://elsewhere.example.net/login" },
          { action: "expect_text", text: "never" },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "FAIL", "a read whose step was stopped");
    assert.equal(receipt.error?.code, "navigation_blocked", JSON.stringify(receipt.error));
    assert.match(receipt.error?.message ?? "", /goes to elsewhere\.example\.net, which is not one of the task's hosts/);
    assert.ok(!receipt.network.preflight.some((verdict) => verdict.host === "elsewhere.example.net"), "the off-list host was never looked up");
  });

  test("waits for content that appears later", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/late` }, steps: [{ action: "expect_text", text: "arrived", selector: "#late" }] }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("reports a write that timed out after its boundary as UNCERTAIN", async () => {
    const { receipt } = await execute(
      task({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", selector: "#name", value: "x" },
          { action: "wait_for", selector: "#never", timeoutMs: 200 },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "UNCERTAIN");
    assert.equal(receipt.mutationBoundary, "crossed");
  });

  test("stops on cancel: CANCELLED before the boundary", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "wait_for", selector: "#never", timeoutMs: 5_000 }] }),
      context({ signal: controller.signal }),
    );
    assert.equal(receipt.status, "CANCELLED");
  });
});
