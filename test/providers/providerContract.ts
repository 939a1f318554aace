import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { AttemptContext, AttemptOutcome } from "../../src/executor/executeTaskTypes.js";
import type { CloudProviderOptions, ProviderEvent } from "../../src/providers/cloudProviderOptions.js";
import { ProviderError } from "../../src/providers/providerTypes.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import type { Task } from "../../src/task/taskTypes.js";
import { memoryVault } from "../executor/memoryVault.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { runningChromiumCount } from "../fixtures/providerEmulators/cdpChromium.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";

/** What the shared contract needs to know about one provider and its emulator. */
export interface ContractSubject {
  /** Machine name, as in receipts ("kernel"). */
  name: string;
  credentialEnv: string;
  start(): Promise<ProviderEmulator>;
  make(options: CloudProviderOptions): BrowserProvider;
  /** The fault kind that refuses a create: "create" for an HTTP API, "connect" for Browserless's WebSocket. */
  createFault: "create" | "connect";
  /** False for Browserless: the session ends when the WebSocket closes, there is no release call. */
  explicitRelease: boolean;
  /** True when the provider ends a session by itself once its CDP connection closes (Browserbase without keepAlive). */
  endsOnDisconnect: boolean;
}

export type Sites = Awaited<ReturnType<typeof startFixtureSites>>;

export function makeTask(partial: Record<string, unknown>): Task {
  const result = validateTask({ schemaVersion: "errand.task.v1", operationId: randomUUID(), risk: "read_only", ...partial });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

export function attemptContext(overrides: Partial<AttemptContext> = {}): AttemptContext {
  return { requestDigest: "hmac-sha256:test", attempt: 1, signal: new AbortController().signal, beforeMutationBoundary: () => Promise.resolve(), ...overrides };
}

export function runOn(provider: BrowserProvider, sites: Sites, task: Task, context: AttemptContext = attemptContext()): Promise<AttemptOutcome> {
  const execute = createExecutor({
    provider,
    guard: loopbackGuard([sites.site.origin]),
    secrets: memoryVault(),
    defaultTaskTimeoutMs: 15_000,
    defaultStepTimeoutMs: 3_000,
  });
  return execute(task, context);
}

/** Asserts that nothing errand produced carries a credential, a session's CDP secret or a WebSocket URL. */
export function assertNoSecrets(produced: unknown, emulator: ProviderEmulator): void {
  const text = JSON.stringify(produced);
  const secrets = [
    ...Object.entries(emulator.env)
      .filter(([name]) => !name.endsWith("_BASE_URL"))
      .map(([, value]) => value),
    ...[...emulator.core.sessions.values()].map((s) => s.connectSecret),
  ];
  for (const secret of secrets) assert.ok(!text.includes(secret), `a secret (${secret.slice(0, 4)}…) leaked into: ${text.slice(0, 400)}`);
  assert.ok(!/wss?:\/\//.test(text), `a WebSocket URL leaked into: ${text.slice(0, 400)}`);
}

const readTask = (sites: Sites) =>
  makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" }] });

/** Waits until the fixture site has served `count` more GETs of path than `before`. */
async function servedAfter(sites: Sites, path: string, before: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (sites.site.count(path, "GET") <= before) {
    if (Date.now() > until) throw new Error(`the fixture never served ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The behaviour every cloud adapter promises, checked against its loopback emulator with the
 * real SDK and a real Chromium behind it: a task passes and the session is released; each
 * failure maps to its code; create is never retried; every session ends, even after failures,
 * drops and broken releases; no secret reaches a receipt, an error or an event.
 */
export function providerContract(subject: ContractSubject): void {
  describe(`${subject.name} adapter, against its loopback emulator`, () => {
    let sites: Sites;
    let emulator: ProviderEmulator;
    const events: ProviderEvent[] = [];
    const provider = (overrides: Partial<CloudProviderOptions> = {}) =>
      subject.make({ env: { ...emulator.env }, startTimeoutMs: 8_000, onEvent: (event) => events.push(event), ...overrides });

    /**
     * After a release that failed, the session is still held by the provider (only its own timeout
     * will end it), unless the provider ends sessions when their CDP connection closes, which
     * errand closes first.
     */
    const expectLeakUnlessEndedOnDisconnect = async () => {
      if (subject.endsOnDisconnect) {
        assert.deepEqual(await emulator.core.settled(), [], "ended when errand closed the CDP connection");
        return;
      }
      const leaked = emulator.core.live();
      assert.equal(leaked.length, 1, "the provider still holds it: only its own timeout will end it");
      await emulator.core.endSession(leaked[0]!, "timeout");
    };

    before(async () => {
      sites = await startFixtureSites();
      emulator = await subject.start();
    });
    after(async () => {
      await emulator.close();
      await sites.close();
      assert.equal(runningChromiumCount(), 0, "every emulator Chromium was killed");
    });

    it("runs a task to PASS through the real SDK, under errand's guards, and releases the session", async () => {
      const creates = emulator.createRequests();
      const outcome = await runOn(
        provider(),
        sites,
        makeTask({
          target: { url: `${sites.site.origin}/subresources` },
          evidenceRetention: "full",
          steps: [{ action: "expect_text", text: "subs", selector: "#p", match: "exact" }],
        }),
      );
      const { receipt } = outcome;
      assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
      assert.equal(receipt.provider, subject.name);
      assert.ok(receipt.providerSessionId !== undefined && emulator.core.sessions.has(receipt.providerSessionId), "the receipt names the provider's session");
      assert.ok(receipt.network.blockedRequests > 0, "the guards ran on the provider's default context");
      assert.equal(sites.other.hits.length, 0, "nothing reached the refused origin");
      assert.equal(emulator.createRequests() - creates, 1);
      assert.deepEqual(await emulator.core.settled(), [], "no session is left running");
      const session = emulator.core.sessions.get(receipt.providerSessionId);
      if (subject.explicitRelease) assert.equal(session?.releaseRequests, 1, "released explicitly, once");
      assertNoSecrets({ outcome, events }, emulator);
    });

    it("is BLOCKED with provider_unconfigured, naming the variable, when the credential is missing; nothing is sent", async () => {
      const creates = emulator.createRequests();
      const unconfigured = subject.make({ env: {} });
      assert.match(unconfigured.missingConfiguration() ?? "", new RegExp(subject.credentialEnv));
      const { receipt } = await runOn(unconfigured, sites, readTask(sites));
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "provider_unconfigured");
      await assert.rejects(
        unconfigured.openSession({ budgetMs: 5_000, signal: new AbortController().signal }),
        (e: unknown) => e instanceof ProviderError && e.code === "provider_unconfigured",
      );
      assert.equal(emulator.createRequests(), creates);
    });

    it("maps a wrong credential (401) to provider_auth_failed, BLOCKED, tried once", async () => {
      const creates = emulator.createRequests();
      const wrong = subject.make({ env: { ...emulator.env, [subject.credentialEnv]: "wrong-credential-value" } });
      const outcome = await runOn(wrong, sites, readTask(sites));
      assert.equal(outcome.receipt.status, "BLOCKED");
      assert.equal(outcome.receipt.error?.code, "provider_auth_failed");
      assert.match(outcome.receipt.error?.message ?? "", new RegExp(subject.credentialEnv));
      assert.ok(!JSON.stringify(outcome).includes("wrong-credential-value"), "the credential is not echoed");
      assert.equal(emulator.createRequests() - creates, 1);
      assertNoSecrets(outcome, emulator);
    });

    it("maps a 403 (a spending cap or a key without permission) to provider_auth_failed", async () => {
      emulator.core.inject(subject.createFault, {
        status: 403,
        body: subject.createFault === "create" ? { code: "forbidden", message: "spending cap reached" } : "Forbidden",
      });
      const { receipt } = await runOn(provider(), sites, readTask(sites));
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "provider_auth_failed");
    });

    it("maps a 429 to provider_capacity, keeps Retry-After when the provider sends it, and never retries the create", async () => {
      const creates = emulator.createRequests();
      emulator.core.inject(subject.createFault, {
        status: 429,
        headers: { "retry-after": "7" },
        body: subject.createFault === "create" ? { code: "rate_limited", message: "too many concurrent sessions" } : "Too many requests",
      });
      const error = await provider()
        .openSession({ budgetMs: 10_000, signal: new AbortController().signal })
        .then(
          () => assert.fail("a 429 must not open a session"),
          (e: unknown) => e,
        );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "provider_capacity");
      // An HTTP API hands errand the header; a refused WebSocket upgrade does not (Playwright hides it).
      assert.equal(error.retryAfterSeconds, subject.createFault === "create" ? 7 : undefined);
      assert.equal(emulator.createRequests() - creates, 1, "the SDK's own retry of 429 is off");

      emulator.core.inject(subject.createFault, { status: 429, body: subject.createFault === "create" ? { message: "too many" } : "Too many requests" });
      const { receipt } = await runOn(provider(), sites, readTask(sites));
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "provider_capacity");
    });

    it("maps a 500 to provider_unavailable without retrying the create: FAIL for a read, BLOCKED for a write", async () => {
      const creates = emulator.createRequests();
      emulator.core.inject(subject.createFault, { status: 500, body: subject.createFault === "create" ? { code: "internal", message: "boom" } : "boom" }, 2);
      const read = await runOn(provider(), sites, readTask(sites));
      assert.equal(read.receipt.status, "FAIL");
      assert.equal(read.receipt.error?.code, "provider_unavailable");
      const write = await runOn(
        provider(),
        sites,
        makeTask({
          target: { url: `${sites.site.origin}/form` },
          risk: "reversible_write",
          approved: true,
          steps: [{ action: "fill", selector: "#name", value: "Ada" }],
        }),
      );
      assert.equal(write.receipt.status, "BLOCKED");
      assert.equal(write.receipt.mutationBoundary, "not_crossed");
      assert.equal(emulator.createRequests() - creates, 2, "one create per attempt, none retried");
      assertNoSecrets([read, write], emulator);
    });

    it("gives up on a slow create at the start deadline (provider_unavailable) and ends the session the provider started anyway", async () => {
      const creates = emulator.createRequests();
      const before = new Set(emulator.core.sessions.keys());
      emulator.core.inject(subject.createFault, { delayMs: 4_000 });
      const began = Date.now();
      const { receipt } = await runOn(provider({ startTimeoutMs: 1_200 }), sites, readTask(sites));
      assert.equal(receipt.error?.code, "provider_unavailable");
      assert.ok(Date.now() - began < 1_200 + 5_000 + 1_000, "bounded by the start deadline plus the cleanup bound");
      assert.equal(emulator.createRequests() - creates, 1, "a timed-out create is not retried");
      assert.deepEqual(await emulator.core.settled(8_000), [], "the orphan was ended");
      const orphan = [...emulator.core.sessions.values()].find((s) => !before.has(s.id));
      assert.ok(orphan !== undefined, "the provider did start a session");
      assert.equal(orphan.endedBy, subject.explicitRelease ? "release" : "disconnect", "errand ended it, not the provider's timeout");
    });

    it("reports a connection dropped mid-task as provider_unavailable (a read FAILs) and still releases the session", async () => {
      const served = sites.site.count("/", "GET");
      // The step waits up to 30 s for an element that never comes; the drop must end it long before.
      const running = runOn(
        provider(),
        sites,
        makeTask({
          target: { url: `${sites.site.origin}/` },
          timeouts: { taskMs: 60_000 },
          steps: [{ action: "wait_for", selector: "#never", timeoutMs: 30_000 }],
        }),
      );
      await servedAfter(sites, "/", served);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const droppedAt = Date.now();
      await emulator.core.drop();
      const outcome = await running;
      assert.equal(outcome.receipt.status, "FAIL");
      assert.equal(outcome.receipt.error?.code, "provider_unavailable", JSON.stringify(outcome.receipt.error));
      assert.ok(Date.now() - droppedAt < 15_000, `the drop is noticed at once, not at the step timeout (${Date.now() - droppedAt} ms after it)`);
      assert.deepEqual(await emulator.core.settled(), [], "no session is left running after the drop");
      assertNoSecrets(outcome, emulator);
    });

    it("reports a browser crash during a write past its mutation boundary as UNCERTAIN (never retried), and ends the session", async () => {
      const creates = emulator.createRequests();
      let crossed = false;
      const running = runOn(
        provider(),
        sites,
        makeTask({
          target: { url: `${sites.site.origin}/form` },
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "fill", selector: "#name", value: "Ada" },
            { action: "wait_for", selector: "#never", timeoutMs: 10_000 },
          ],
        }),
        attemptContext({
          beforeMutationBoundary: () => {
            crossed = true;
            setTimeout(() => void emulator.core.drop({ crash: true }), 300);
            return Promise.resolve();
          },
        }),
      );
      const { receipt } = await running;
      assert.ok(crossed);
      assert.equal(receipt.status, "UNCERTAIN");
      assert.equal(receipt.error?.code, "provider_unavailable");
      assert.equal(receipt.mutationBoundary, "crossed");
      assert.equal(emulator.createRequests() - creates, 1, "the write ran on one session only");
      assert.deepEqual(await emulator.core.settled(), []);
    });

    it("refuses nothing after a drop before a write's boundary: BLOCKED, provably side-effect free", async () => {
      const served = sites.site.count("/form", "GET");
      const running = runOn(
        provider(),
        sites,
        makeTask({
          target: { url: `${sites.site.origin}/form` },
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "wait_for", selector: "#never", timeoutMs: 10_000 },
            { action: "fill", selector: "#name", value: "Ada" },
          ],
        }),
      );
      await servedAfter(sites, "/form", served);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await emulator.core.drop();
      const { receipt } = await running;
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "provider_unavailable");
      assert.equal(receipt.mutationBoundary, "not_crossed");
      assert.deepEqual(await emulator.core.settled(), []);
    });

    if (subject.createFault === "create") {
      it("releases the created session when the CDP connect is refused, and keeps the URL out of the error", async () => {
        const before = new Set(emulator.core.sessions.keys());
        emulator.core.inject("connect", { status: 500 });
        const outcome = await runOn(provider(), sites, readTask(sites));
        assert.equal(outcome.receipt.error?.code, "provider_unavailable");
        assert.match(outcome.receipt.error?.message ?? "", /connecting to the browser/);
        assert.deepEqual(await emulator.core.settled(), []);
        const created = [...emulator.core.sessions.values()].filter((s) => !before.has(s.id));
        assert.equal(created.length, 1);
        assert.equal(created[0]?.endedBy, "release");
        assertNoSecrets(outcome, emulator);
      });
    }

    if (subject.explicitRelease) {
      it("retries a release that failed once (releases are idempotent) and the session ends", async () => {
        emulator.core.inject("release", { status: 500 });
        const releases = emulator.releaseRequests();
        const { receipt } = await runOn(provider(), sites, readTask(sites));
        assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
        assert.equal(emulator.releaseRequests() - releases, 2);
        assert.deepEqual(await emulator.core.settled(), []);
      });

      it("gives up on a release that never answers within the cleanup bound, never throws, and reports it", async () => {
        emulator.core.inject("release", { hang: true }, 3);
        const lateEvents = events.length;
        const session = await provider({ cleanupBoundMs: 1_500 }).openSession({ budgetMs: 10_000, signal: new AbortController().signal });
        const began = Date.now();
        await session.release();
        const took = Date.now() - began;
        assert.ok(took < 1_500 + 500, `release took ${took} ms`);
        const failed = events.slice(lateEvents).find((e) => e.kind === "release_failed");
        assert.ok(failed !== undefined, "the failed release is reported");
        assert.match(failed.message, /cleanup bound/);
        await expectLeakUnlessEndedOnDisconnect();
        assertNoSecrets(events, emulator);
      });

      it("survives a release answered with 500 every time: bounded, reported, the receipt unchanged", async () => {
        emulator.core.inject("release", { status: 503 }, 3);
        const lateEvents = events.length;
        const { receipt } = await runOn(provider({ cleanupBoundMs: 3_000 }), sites, readTask(sites));
        assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
        assert.ok(events.slice(lateEvents).some((e) => e.kind === "release_failed"));
        await expectLeakUnlessEndedOnDisconnect();
      });
    }
  });
}
