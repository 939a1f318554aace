import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createProgramExecutor } from "../../src/executor/createProgramExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { generateProgram } from "../../src/program/generateProgram.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createKernelProvider } from "../../src/providers/kernelProvider.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { startKernelEmulator } from "../fixtures/providerEmulators/kernelEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";

const noChromium = findChromium(process.env) === null ? "no Chromium (apt-get install -y chromium)" : null;

describe("Kernel's form of the program", () => {
  it("carries the task's values only in one base64 literal: the code around it is byte-identical whatever the values", () => {
    const hostile = "q\"'`${globalThis.x=1}</script>\u2028\u2029\\ end";
    const code = (value: string, url: string) => {
      const task = makeTask({
        target: { url },
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", selector: `#${value.length > 5 ? "a" : "b"}`, value },
          { action: "expect_text", text: value },
        ],
      });
      const program = generateProgram(task, { taskMs: 5_000, stepMs: 1_000 }, "kernel_execute");
      if (!program.ok) throw new Error(program.refusal.message);
      return program.value.code;
    };
    const literal = /const paramsBase64 = "([A-Za-z0-9+/=]*)";/;
    const a = code("plain", "https://shop.example/");
    const b = code(hostile, "https://other.example:8443/x?y=1");
    assert.match(a, literal);
    assert.match(b, literal);
    assert.equal(a.replace(literal, ""), b.replace(literal, ""));
    assert.ok(!b.includes("globalThis.x=1") && !b.includes("</script>"));
    const decoded = JSON.parse(Buffer.from(literal.exec(b)?.[1] ?? "", "base64").toString("utf8")) as { steps: { value?: string }[] };
    assert.equal(decoded.steps[0]?.value, hostile);
  });
});

describe("program mode on Kernel's execute endpoint (the emulator runs the code on a real Chromium page)", { skip: noChromium ?? false }, () => {
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  let kernel: ProviderEmulator;

  before(async () => {
    sites = await startFixtureSites();
    kernel = await startKernelEmulator({ reachLoopback: true });
  });
  after(async () => {
    await kernel?.close();
    await sites?.close();
  });

  const execute = () => {
    const allowances = parseAllowPrivate([sites.site.origin.slice("http://".length)]);
    if (!allowances.ok) throw new Error("allowance");
    return createProgramExecutor({
      provider: createKernelProvider({ env: kernel.env }),
      guard: createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allowances.value }),
      secrets: emptySecretVault(),
      defaultTaskTimeoutMs: 15_000,
      defaultStepTimeoutMs: 3_000,
    }).execute;
  };
  const executes = () => kernel.core.count("POST", /^\/browsers\/[^/]+\/playwright\/execute$/);

  it("runs a read_only task as one execute call in a browser it creates and always deletes, and PASSes on its expectations", async () => {
    const origin = sites.site.origin;
    const before = { executes: executes(), creates: kernel.createRequests(), releases: kernel.releaseRequests() };
    const { receipt, ephemeral } = await execute()(
      makeTask({
        target: { url: `${origin}/` },
        steps: [
          { action: "extract_text", selector: "#title", name: "title" },
          { action: "extract_attribute", selector: "#intro", attribute: "title", name: "tip" },
          { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
          { action: "click", selector: "#to-form" },
          { action: "wait_for", url: `${origin}/form`, match: "exact" },
          { action: "select", selector: "#color", value: "Blue" },
          { action: "expect_count", selector: "option", count: 2, match: "exact" },
          { action: "expect_url", url: `${origin}/form`, match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.provider, "kernel");
    assert.deepEqual(ephemeral.outputs, { title: "Fixture Home", tip: "greeting" });
    assert.deepEqual(receipt.finalUrl, { untrusted: true, text: `${origin}/form` });
    assert.equal(executes() - before.executes, 1);
    assert.equal(kernel.createRequests() - before.creates, 1);
    assert.equal(kernel.releaseRequests() - before.releases, 1);
  });

  it("holds every request to the task's hosts and aborts a read_only page's writes: nothing reaches a listener", async () => {
    const origin = sites.site.origin;
    const before = {
      track: sites.site.count("/track"),
      beacon: sites.site.count("/beacon"),
      other: sites.other.hits.length,
      otherConnections: sites.other.connections(),
    };
    const { receipt } = await execute()(
      makeTask({
        target: { url: `${origin}/subresources` },
        steps: [
          { action: "expect_text", text: "subs", selector: "#p", match: "exact" },
          { action: "goto", url: `${origin}/post-on-load` },
          { action: "expect_text", text: "loaded", selector: "#p", match: "exact" },
          { action: "goto", url: `${origin}/xhr` },
          { action: "goto", url: `${origin}/ws` },
          { action: "goto", url: `${origin}/popup-off` },
          { action: "click", selector: "#open" },
          { action: "goto", url: `${origin}/` },
          { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(sites.other.hits.length, before.other, JSON.stringify(sites.other.hits));
    assert.equal(sites.site.count("/track"), before.track);
    assert.equal(sites.site.count("/beacon"), before.beacon);
    assert.ok(receipt.network.nonGetAborted >= 2 && receipt.network.blockedRequests >= 4, JSON.stringify(receipt.network));
  });

  it("types a hostile value as data and sends the write once", async () => {
    const hostile = "q\"'`${globalThis.x=1}</script><b>\u2028\u2029\\n\\\\ end";
    const before = sites.site.count("/save", "POST");
    const { receipt } = await execute()(
      makeTask({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", selector: "#name", value: hostile },
          { action: "click", selector: "#submit" },
          { action: "wait_for", url: `${sites.site.origin}/saved`, match: "prefix" },
          { action: "expect_text", text: `Saved ${hostile.replace(/[<&]/g, "")}`, selector: "#result", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(sites.site.count("/save", "POST"), before + 1);
    const posted = sites.site.hits.filter((hit) => hit.path === "/save" && hit.method === "POST").at(-1);
    assert.equal(new URLSearchParams(posted?.body ?? "").get("name"), hostile);
    assert.equal((globalThis as { x?: unknown }).x, undefined);
  });

  it("a write whose browser Kernel refused to create (429) is BLOCKED: its boundary was never recorded and no program was sent", async () => {
    kernel.core.inject("create", { status: 429 });
    const before = executes();
    let boundaries = 0;
    const { receipt } = await execute()(
      makeTask({ target: { url: `${sites.site.origin}/form` }, risk: "reversible_write", approved: true, steps: [{ action: "click", selector: "#submit" }] }),
      makeContext({
        beforeMutationBoundary: () => {
          boundaries += 1;
          return Promise.resolve();
        },
      }),
    );
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "provider_capacity");
    assert.equal(receipt.mutationBoundary, "not_crossed");
    assert.equal(boundaries, 0);
    assert.equal(executes(), before);
  });
});
