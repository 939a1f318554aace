import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { ScopableSessionProxy } from "../../src/providers/local/localProvider.js";
import type { BrowserProvider, ProviderSession, SessionScope } from "../../src/providers/providerTypes.js";
import { startSessionProxy, startUnscopedSessionProxy } from "../../src/app/buildExecutor.js";
import { operatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";

/**
 * The local provider's spare session (LocalProviderOptions.spareProxy): a context and a blank page
 * opened between tasks, behind an egress proxy that refuses everything until a session takes it
 * and gives the task's scope. The attacker's view: nothing the spare does before its task reaches
 * a listener, the scope it gets is the taking task's and no other, and shutdown leaves nothing open.
 */
let site: FixtureServer;

before(async () => {
  site = await startRecordingServer("127.0.0.1", {
    "/page": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>page</title><p>hello</p>"),
    "/writer": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><title>writer</title><script>fetch("/sink", { method: "POST", body: "x" }).catch(() => {}); navigator.sendBeacon("/sink", "x");</script>`,
        ),
    "/sink": (_req, res) => res.writeHead(204).end(),
  });
});
after(() => site.close());

/** A provider as `errand serve` builds it, under a policy that admits the loopback site; it records every spare proxy it starts. */
function servingProvider(): { provider: BrowserProvider; spares: { closed: boolean }[] } {
  const policy = operatorNetworkPolicy({ ERRAND_RESOLVER: "system" }, [`127.0.0.1:${site.port}`]);
  const spares: { closed: boolean }[] = [];
  const provider = createLocalProvider({
    env: process.env,
    proxyForSession: (scope) => startSessionProxy(policy, scope),
    spareProxy: async (): Promise<ScopableSessionProxy> => {
      const proxy = await startUnscopedSessionProxy(policy);
      const record = { closed: false };
      spares.push(record);
      return {
        ...proxy,
        close: async () => {
          record.closed = true;
          await proxy.close();
        },
      };
    },
  });
  return { provider, spares };
}

const open = (provider: BrowserProvider, scope: SessionScope) => provider.openSession({ budgetMs: 30_000, signal: new AbortController().signal, scope });

/** Polls until `done` holds or the time is up (a spare is made in the background after a release). */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The one context the browser holds while no session is open: the spare. */
async function spareContextOf(session: ProviderSession) {
  const browser = session.context.browser();
  assert.ok(browser !== null);
  await session.release();
  await until(() => browser.contexts().length === 1 && browser.contexts()[0]!.pages().length === 1);
  assert.equal(browser.contexts().length, 1, "no spare context was opened after the session ended");
  return browser.contexts()[0]!;
}

describe("local provider: a spare session kept ready between tasks", () => {
  test("the spare reaches nothing before its task; the session that takes it gets its blank page and its own scope only; its receipt lists nothing from before", async () => {
    const { provider, spares } = servingProvider();
    try {
      const first = await open(provider, { hosts: ["127.0.0.1"], readOnly: false });
      assert.ok(first.page !== undefined, "the local provider hands over the page it opened");
      const spare = await spareContextOf(first);

      // An attacker holding the spare's page before any task: nothing leaves.
      const hitsBefore = site.hits.length;
      const connectionsBefore = site.connections();
      const early = await spare
        .pages()[0]!
        .goto(`${site.origin}/page`)
        .then((r) => r?.status() ?? 0)
        .catch(() => -1);
      assert.notEqual(early, 200, "the spare loaded a page before it had a task");
      await spare.pages()[0]!.goto("about:blank");
      assert.equal(site.hits.length - hitsBefore, 0, "a request reached the site from a spare with no task");
      assert.equal(site.connections() - connectionsBefore, 0, "a connection reached the site from a spare with no task");

      const taken = await open(provider, { hosts: ["127.0.0.1"], readOnly: false });
      assert.equal(taken.context, spare, "the next session did not take the spare");
      assert.equal(taken.page?.url(), "about:blank");
      const response = await taken.page.goto(`${site.origin}/page`);
      assert.equal(response?.status(), 200, "the task's own host is served once the spare is taken");
      assert.deepEqual(taken.egressBlocked?.(), [], "refusals from before the task are in its evidence");

      // The next spare goes to a task that names another host: the site's allowance is not its.
      const other = await spareContextOf(taken);
      const narrow = await open(provider, { hosts: ["elsewhere.example"], readOnly: false });
      assert.equal(narrow.context, other);
      const hits = site.hits.length;
      const refused = await narrow
        .page!.goto(`${site.origin}/page`)
        .then((r) => r?.status() ?? 0)
        .catch(() => -1);
      assert.notEqual(refused, 200);
      assert.equal(site.hits.length - hits, 0, "a task reached a host it does not name through a spare's proxy");
      assert.ok(
        (narrow.egressBlocked?.() ?? []).some((b) => b.host === "127.0.0.1" && b.port === site.port),
        "the refusal is not in the task's evidence",
      );
      await narrow.release();
      await until(() => spares.length === 3);
    } finally {
      await provider.shutdown();
    }
    assert.equal(spares.length, 3, "one spare per ended session");
    assert.ok(
      spares.every((s) => s.closed),
      "a spare's proxy was left open after shutdown",
    );
  });

  test("a read_only spare runs under the read_only browser's write stop and credits what it stops to the session that took it", async () => {
    const { provider } = servingProvider();
    try {
      const first = await open(provider, { hosts: ["127.0.0.1"], readOnly: true });
      const spare = await spareContextOf(first);
      const taken = await open(provider, { hosts: ["127.0.0.1"], readOnly: true });
      assert.equal(taken.context, spare);
      await taken.page!.goto(`${site.origin}/writer`);
      await until(() => (taken.writesStopped?.().count ?? 0) >= 2, 10_000);
      assert.equal(site.count("/sink", "POST"), 0, "a write left a read_only spare");
      assert.ok((taken.writesStopped?.().count ?? 0) >= 2, "the stopped writes were not credited to the session that took the spare");
      await taken.release();
    } finally {
      await provider.shutdown();
    }
  });

  test("one-shot use keeps no spare: without spareProxy a released session leaves no context behind", async () => {
    const policy = operatorNetworkPolicy({ ERRAND_RESOLVER: "system" }, [`127.0.0.1:${site.port}`]);
    const provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
    try {
      const session = await open(provider, { hosts: ["127.0.0.1"], readOnly: false });
      const browser = session.context.browser();
      await session.release();
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(browser?.contexts().length, 0);
    } finally {
      await provider.shutdown();
    }
  });
});
