import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { MINUTE } from "../../src/config/units.js";
import { ConfigError } from "../../src/config/runtimeConfig.js";
import { admitTask } from "../../src/executor/admitTask.js";
import type { AdmittedTask } from "../../src/executor/admitTask.js";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createProgramExecutor } from "../../src/executor/createProgramExecutor.js";
import type { ProgressEvent } from "../../src/executor/executeTaskTypes.js";
import type { NetworkGuard } from "../../src/executor/networkGuard.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { prepareProgram } from "../../src/executor/prepareProgram.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { CLOUD_PROVIDER_NAMES } from "../../src/providers/providerNames.js";
import { createCloudProvider } from "../../src/providers/createCloudProvider.js";
import { PROGRAM_DIALECTS } from "../../src/providers/programDialects.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { createRouter } from "../../src/router/createRouter.js";
import { resolveProviderModes } from "../../src/router/providerModes.js";
import { resolveRoutingConfig } from "../../src/router/routingConfig.js";
import { withProgramMode } from "../../src/router/withProgramMode.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { openSqliteProviderStore } from "../../src/store/sqlite/openSqliteProviderStore.js";
import type { ProviderStore } from "../../src/store/ProviderStore.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";
import { openHarness } from "../operations/support/harness.js";

const TOKEN = "errand-program-routing-token-2b9f";

describe("ERRAND_MODE_<PROVIDER>", () => {
  it("is cdp unless the operator says program, and program only where errand has a runner, naming the variable", () => {
    assert.deepEqual(resolveProviderModes({}), { kernel: "cdp", browserless: "cdp", browserbase: "cdp", steel: "cdp" });
    assert.equal(resolveProviderModes({ ERRAND_MODE_BROWSERLESS: " program " }).browserless, "program");
    assert.throws(
      () => resolveProviderModes({ ERRAND_MODE_BROWSERLESS: "fast" }),
      (error: unknown) =>
        error instanceof ConfigError && /ERRAND_MODE_BROWSERLESS="fast" is not a mode: use cdp \(the default\) or program/.test(error.message),
    );
    for (const name of CLOUD_PROVIDER_NAMES.filter((other) => PROGRAM_DIALECTS[other] === undefined)) {
      const variable = `ERRAND_MODE_${name.toUpperCase()}`;
      assert.throws(
        () => resolveProviderModes({ [variable]: "program" }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${variable}=program: errand has no program runner for ${name}`),
      );
    }
  });

  it("the providers that accept program mode are exactly the adapters that carry a program runner", () => {
    for (const name of CLOUD_PROVIDER_NAMES) {
      const accepts = (() => {
        try {
          return resolveProviderModes({ [`ERRAND_MODE_${name.toUpperCase()}`]: "program" })[name] === "program";
        } catch {
          return false;
        }
      })();
      const adapter = createCloudProvider(name, { env: {} });
      assert.equal(adapter.programDialect, PROGRAM_DIALECTS[name], name);
      assert.equal(adapter.runProgram !== undefined, PROGRAM_DIALECTS[name] !== undefined, name);
      assert.equal(accepts, PROGRAM_DIALECTS[name] !== undefined, name);
    }
  });
});

describe("prepareProgram keeps out of program mode what only errand's side holds", () => {
  /** A guard whose preflight allows every URL, through an operator allowance on a private address, resolved as `resolver` says. */
  function allowanceGuard(resolver: string): NetworkGuard {
    const guard: NetworkGuard = {
      forTask: () => guard,
      checkRequest: () => ({ allowed: true, code: "ok", reason: "test" }),
      checkAllowedHosts: () => ({ allowed: true, code: "ok", reason: "test" }),
      preflight: (url) =>
        Promise.resolve({
          url,
          href: new URL(url).href,
          host: new URL(url).hostname,
          verdict: "allow",
          code: "ok",
          reason: "allowed",
          resolver,
          addresses: [{ ip: "10.0.0.7", verdict: "allowed:private" }],
        }),
    };
    return guard;
  }
  async function admitted(task: ReturnType<typeof makeTask>, guard: NetworkGuard): Promise<AdmittedTask> {
    const admission = await admitTask(task, { guard, secrets: emptySecretVault() });
    assert.ok(admission.admitted);
    return admission;
  }

  it("a destination allowed by name stays in CDP mode; one allowed as an address literal may go", async () => {
    const byName = makeTask({ target: { url: "http://intranet.example:8080/" }, steps: [{ action: "expect_text", text: "x" }] });
    const refused = await prepareProgram(byName, await admitted(byName, allowanceGuard("doh")), { taskMs: 5_000, stepMs: 1_000 });
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.reason, /intranet\.example is reached through an operator allowance by name/);
    const literal = makeTask({ target: { url: "http://10.0.0.7:8080/" }, steps: [{ action: "expect_text", text: "x" }] });
    const prepared = await prepareProgram(literal, await admitted(literal, allowanceGuard("literal")), { taskMs: 5_000, stepMs: 1_000 });
    assert.ok(prepared.ok);
    assert.deepEqual(prepared.program.params.hosts.ports, ["10.0.0.7:8080"]);
  });

  it("every goto, wait_for and expect_url address is preflighted before it goes into a program; one refusal keeps the task out", async () => {
    const seen: string[] = [];
    const guard: NetworkGuard = {
      ...allowanceGuard("literal"),
      forTask: () => guard,
      preflight: (url) => {
        seen.push(url);
        const blocked = url.includes("/blocked");
        return Promise.resolve({
          url,
          href: blocked ? null : url,
          host: "10.0.0.7",
          verdict: blocked ? "block" : "allow",
          code: blocked ? "ip_blocked" : "ok",
          reason: "test",
          resolver: "literal",
          addresses: [],
        });
      },
    };
    const task = makeTask({
      target: { url: "http://10.0.0.7/" },
      steps: [
        { action: "goto", url: "http://10.0.0.7/a" },
        { action: "wait_for", url: "http://10.0.0.7/b", match: "prefix" },
        { action: "expect_url", url: "http://10.0.0.7/blocked", match: "prefix" },
      ],
    });
    const prepared = await prepareProgram(task, await admitted(task, guard), { taskMs: 5_000, stepMs: 1_000 });
    assert.equal(prepared.ok, false);
    assert.deepEqual(seen, ["http://10.0.0.7/", "http://10.0.0.7/a", "http://10.0.0.7/b", "http://10.0.0.7/blocked"]);
  });
});

const unavailable = browserlessUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping the program routing tests against Browserless: ${unavailable}\n`);

describe("the router sends a task to program mode only when the operator chose it and the task fits", { skip: unavailable ?? false }, () => {
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  let server: BrowserlessServer;
  let store: ProviderStore;
  let closeHarness: () => Promise<void>;

  before(async () => {
    sites = await startFixtureSites();
    server = await startBrowserlessServer({ token: TOKEN, concurrent: 1, queued: 2, timeoutMs: 30_000 });
    const h = await openHarness();
    closeHarness = () => h.close();
    store = openSqliteProviderStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1_000 });
    await store.recordSmoke({ provider: "browserless", operationId: "smoke", status: "PASS", errorCode: null });
  });
  after(async () => {
    await store?.close();
    await closeHarness?.();
    await server?.stop();
    await sites?.close();
  });

  function router(modeEnv: NodeJS.ProcessEnv) {
    const env = { ERRAND_PROVIDER_ORDER: "browserless", ...modeEnv };
    const allowances = parseAllowPrivate([sites.site.origin.slice("http://".length)]);
    if (!allowances.ok) throw new Error("allowance");
    const guard = createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allowances.value });
    const unused = (name: string): BrowserProvider => ({
      name,
      kind: "cloud",
      missingConfiguration: () => `no ${name} in this test`,
      openSession: () => Promise.reject(new Error("unused")),
      shutdown: () => Promise.resolve(),
    });
    const browserless = createBrowserlessProvider({ env: { BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: server.wsBase } });
    const config = resolveRoutingConfig(env);
    const ports = { guard, secrets: emptySecretVault(), defaultTaskTimeoutMs: 20_000, defaultStepTimeoutMs: 5_000 };
    return createRouter({
      store,
      config,
      providers: {
        local: { ...unused("local"), kind: "local" },
        kernel: unused("kernel"),
        browserless,
        browserbase: unused("browserbase"),
        steel: unused("steel"),
      },
      admit: (task) => admitTask(task, ports),
      executorFor: (provider) =>
        withProgramMode({
          mode: config.modes.browserless,
          provider,
          cdp: createExecutor({ provider, ...ports }),
          program: createProgramExecutor({ provider, ...ports }),
        }),
      defaultTaskTimeoutMs: 20_000,
      breaker: { threshold: 3, cooldownMs: 15 * MINUTE, probeTimeoutMs: MINUTE },
      holder: "program-routing-test",
    });
  }

  async function run(modeEnv: NodeJS.ProcessEnv, steps: unknown[]) {
    const notes: string[] = [];
    const task = makeTask({ target: { url: `${sites.site.origin}/` }, provider: "browserless", steps });
    const since = Date.now() - MINUTE;
    const before = await store.readUsage("browserless", since);
    const outcome = await router(modeEnv)(
      task,
      makeContext({ onProgress: (event: ProgressEvent) => void (event.kind === "note" && notes.push(event.message)) }),
    );
    const usage = await store.readUsage("browserless", since);
    return { receipt: outcome.receipt, notes, booked: usage.amount - before.amount, liveSlots: usage.liveSlots };
  }

  it("with ERRAND_MODE_BROWSERLESS=program a task that fits runs as one program, its slot and usage booked like a session's", async () => {
    const { receipt, notes, booked, liveSlots } = await run({ ERRAND_MODE_BROWSERLESS: "program" }, [
      { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
    ]);
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(notes, ["browserless: program mode (the whole task as one program)"]);
    assert.equal(booked, 1, "one Browserless unit for a program under 30 s");
    assert.equal(liveSlots, 0);
  });

  it("a task the generator refuses runs over CDP on the same provider", async () => {
    const { receipt, notes } = await run({ ERRAND_MODE_BROWSERLESS: "program" }, [
      { action: "expect_text", text: "Fixture Home", selector: "text=Fixture Home", match: "contains" },
    ]);
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(notes.length, 1);
    assert.match(notes[0] ?? "", /^browserless: CDP mode for this task \(.*the text= engine/);
  });

  it("without the setting every task runs over CDP", async () => {
    const { receipt, notes } = await run({}, [{ action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" }]);
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(notes, []);
  });
});
