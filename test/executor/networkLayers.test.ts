import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { NetworkGuard } from "../../src/executor/networkGuard.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import type { PrivateAllowance } from "../../src/policy/parseAllowPrivate.js";
import type { Resolver } from "../../src/policy/resolver.js";
import { scopeAllowances } from "../../src/policy/scopeAllowances.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { startEgressProxy } from "../../src/providers/local/egressProxy.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";
import { startFixtureSites, startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";

/**
 * The three network layers together, with the real policy: a fixture site on 127.0.0.1 (admitted
 * by an operator allowance) and a listener on 127.0.0.2 standing in for a private service, which
 * must never receive a single connection, whatever the page tries.
 */
let sites: Awaited<ReturnType<typeof startFixtureSites>>;
let allowances: PrivateAllowance[];
let privateOnPort80: FixtureServer | null = null;
const providers: { shutdown(): Promise<void> }[] = [];

const task = makeTask;
const context = makeContext;

/** An executor whose local Chromium sends everything through an egress proxy using `resolver`. */
function executorWith(resolver: Resolver, guard: NetworkGuard) {
  const provider = createLocalProvider({
    env: process.env,
    proxyForSession: async (scope) => {
      const proxy = await startEgressProxy({ resolver, allowPrivate: scopeAllowances(allowances, scope.hosts), readOnly: scope.readOnly });
      return { server: proxy.url, blocked: () => proxy.blocked(), seal: () => proxy.seal(), close: () => proxy.close() };
    },
  });
  providers.push(provider);
  // Generous budgets: under load a browser start alone can take seconds, and no assertion here is about time.
  return createExecutor({ provider, guard, secrets: memoryVault(), defaultTaskTimeoutMs: 30_000, defaultStepTimeoutMs: 5_000 });
}

/** A guard that lets everything through, so only the egress proxy stands between page and network. */
const permissiveGuard: NetworkGuard = {
  forTask: () => permissiveGuard,
  checkRequest: () => ({ allowed: true, code: "ok", reason: "test: layer 2 switched off" }),
  checkAllowedHosts: () => ({ allowed: true, code: "ok", reason: "test: layer 2 switched off" }),
  preflight: (url) =>
    Promise.resolve({
      url,
      href: new URL(url).href,
      host: new URL(url).hostname,
      verdict: "allow",
      code: "ok",
      reason: "test",
      resolver: "none",
      addresses: [],
    }),
};

before(async () => {
  sites = await startFixtureSites();
  const parsed = parseAllowPrivate([sites.site.origin.slice("http://".length)]);
  assert.ok(parsed.ok);
  allowances = parsed.value;
  try {
    privateOnPort80 = await startRecordingServer("127.0.0.2", {}, (_req, res) => void res.writeHead(200).end("intranet-only page"), 80);
  } catch {
    privateOnPort80 = null; // port 80 taken or not permitted: the rebinding test says so and skips
  }
});
after(async () => {
  for (const provider of providers) await provider.shutdown();
  await sites.close();
  await privateOnPort80?.close();
});

const ATTACK_PAGES = ["/redirect-off", "/redirect-307", "/redirect-hop", "/meta-refresh", "/js-location", "/subresources", "/xhr", "/ws", "/popup-off"];

describe("network layers in the browser, from the attacker's side", () => {
  test("with every layer on, no attack page gets a connection through to the private listener", async () => {
    const execute = executorWith(createStaticResolver({}), createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allowances }));
    for (const path of ATTACK_PAGES) {
      const { receipt } = await execute(
        task({ target: { url: `${sites.site.origin}${path}` }, steps: [{ action: "click", selector: "#open", timeoutMs: 3_000 }] }),
        context(),
      );
      assert.notEqual(receipt.status, "PASS", path);
      const stopped = receipt.network.blockedRequests + receipt.network.navigationsBlocked + receipt.network.egressBlocked;
      assert.ok(
        stopped >= 1 || receipt.network.popupsClosed >= 1,
        `${path}: nothing was recorded as stopped: ${JSON.stringify(receipt.error)} ${JSON.stringify(receipt.network)}`,
      );
    }
    assert.equal(sites.other.connections(), 0, "the private listener received a connection");
  });

  test("with the in-browser checks switched off, the egress proxy alone still refuses every private destination", async () => {
    const execute = executorWith(createStaticResolver({}), permissiveGuard);
    let refusals = 0;
    for (const path of ATTACK_PAGES) {
      const { receipt } = await execute(
        task({
          target: { url: `${sites.site.origin}${path}` },
          allowedHosts: ["example.com"],
          steps: [
            { action: "click", selector: "#open", timeoutMs: 500 },
            { action: "wait_for", selector: "#never", timeoutMs: 300 },
          ],
        }),
        context(),
      );
      refusals += receipt.network.egressBlocked;
    }
    // Redirects are already stopped by the host allowlist, which stays on; subresources, XHR and
    // websockets reach the proxy, which must refuse each of them.
    assert.ok(refusals >= 3, `the proxy refused only ${refusals} connections`);
    assert.equal(sites.other.connections(), 0, "the private listener received a connection");
  });

  test("DNS rebinding: a name that was public at preflight and private at connect is refused by the proxy", async (t) => {
    if (privateOnPort80 === null) {
      t.skip("127.0.0.2:80 could not be bound here");
      return;
    }
    let lookups = 0;
    const rebinding: Resolver = {
      name: "rebinding-test",
      resolve: () => {
        lookups += 1;
        return Promise.resolve({ addresses: [lookups === 1 ? "93.184.215.14" : "127.0.0.2"] });
      },
    };
    const execute = executorWith(rebinding, createPolicyNetworkGuard({ resolver: rebinding, allowPrivate: allowances }));
    const { receipt } = await execute(
      task({ target: { url: "http://rebind.example/" }, steps: [{ action: "expect_text", text: "intranet-only page", timeoutMs: 500 }] }),
      context(),
    );
    assert.equal(receipt.network.preflight[0]?.verdict, "allow", "the preflight saw a public answer");
    assert.equal(receipt.status, "FAIL");
    assert.ok(receipt.network.egressBlocked >= 1);
    assert.ok(lookups >= 2, "the proxy resolved the name again");
    assert.equal(privateOnPort80.connections(), 0, "the rebound address received a connection");
  });
});
