// The admission step alone: every refusal errand gives before a browser, in its order, against
// stand-in ports that record what was asked of them; and the one receipt such a refusal gets.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { admitTask } from "../../src/executor/admitTask.js";
import type { AdmissionPorts, TargetVerdict } from "../../src/executor/admitTask.js";
import type { NetworkGuard } from "../../src/executor/networkGuard.js";
import { refusalOutcome } from "../../src/executor/refusalOutcome.js";
import { isEnvironmentRefusal } from "../../src/operations/environmentRefusal.js";
import { SecretError } from "../../src/secrets/secretTypes.js";
import type { Task } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import { memoryVault } from "./memoryVault.js";

const SECRET = "correct-horse-battery-staple";

/** A valid task; approvals may then be taken away, as `errand run` of an unapproved file does. */
function makeTask(partial: Record<string, unknown>, unapproved: { approved?: false; secretApproval?: false } = {}): Task {
  const result = validateTask({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    risk: "read_only",
    target: { url: "https://shop.example/" },
    steps: [{ action: "expect_text", text: "Shop" }],
    ...partial,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...result.value, ...unapproved };
}

const writeWithSecret = (extra: Record<string, unknown> = {}) =>
  makeTask({
    risk: "consequential",
    approved: true,
    secretApproval: true,
    steps: [{ action: "fill_secret", selector: "#password", secret: "SHOP_PASSWORD" }],
    ...extra,
  });

interface Recorded {
  scopes: string[][];
  hostChecks: string[][];
  preflights: string[];
  reveals: string[];
}

/** A network policy that refuses what it is told to and records every question it is asked. */
function recordingPorts(options: { hostsRefused?: string; blockCode?: string; secrets?: AdmissionPorts["secrets"] } = {}): {
  ports: AdmissionPorts;
  asked: Recorded;
} {
  const asked: Recorded = { scopes: [], hostChecks: [], preflights: [], reveals: [] };
  const guard: NetworkGuard = {
    forTask: (hosts) => {
      asked.scopes.push([...hosts]);
      return guard;
    },
    checkRequest: () => ({ allowed: true, code: "ok", reason: "ok" }),
    checkAllowedHosts: (patterns) => {
      asked.hostChecks.push([...patterns]);
      return options.hostsRefused === undefined
        ? { allowed: true, code: "ok", reason: "ok" }
        : { allowed: false, code: "invalid_allowed_host", reason: options.hostsRefused };
    },
    preflight: (url) => {
      asked.preflights.push(url);
      const blocked = options.blockCode !== undefined;
      const verdict: TargetVerdict = {
        url,
        host: new URL(url).hostname,
        verdict: blocked ? "block" : "allow",
        code: options.blockCode ?? "allowed",
        resolver: "static",
        addresses: [{ ip: "203.0.113.7", verdict: blocked ? "block" : "allow" }],
        href: blocked ? null : new URL(url).href,
        reason: blocked ? "it resolves to a private address" : "public",
      };
      return Promise.resolve(verdict);
    },
  };
  const vault = options.secrets ?? memoryVault({ SHOP_PASSWORD: { sites: ["https://shop.example"], value: SECRET } });
  const secrets: AdmissionPorts["secrets"] = {
    reveal: (name) => {
      asked.reveals.push(name);
      return vault.reveal(name);
    },
  };
  return { ports: { guard, secrets }, asked };
}

const context = { requestDigest: "hmac-sha256:test", attempt: 1 };

describe("admitTask: the refusals before any browser, in order", () => {
  test("admits a task that passes every check, with its narrowed policy, its target's verdict and its revealed secrets", async () => {
    const { ports, asked } = recordingPorts();
    const task = writeWithSecret({ allowedHosts: ["*.cdn.example"] });
    const admission = await admitTask(task, ports);
    assert.ok(admission.admitted);
    assert.equal(admission.targetHref, "https://shop.example/");
    assert.deepEqual(
      admission.preflight.map((v) => `${v.host}:${v.verdict}`),
      ["shop.example:allow"],
    );
    assert.deepEqual(asked.scopes, [["shop.example", "*.cdn.example"]], "the policy is narrowed to the task's own hosts");
    assert.deepEqual([...admission.held.keys()], ["SHOP_PASSWORD"]);
    assert.equal(admission.held.get("SHOP_PASSWORD")?.value, SECRET);
    assert.equal(admission.redactor.scrub(`typed ${SECRET}`), "typed [REDACTED]", "the redactor knows every revealed value");
  });

  test("a secret named twice is revealed once", async () => {
    const { ports, asked } = recordingPorts();
    const twice = writeWithSecret({
      steps: [
        { action: "fill_secret", selector: "#a", secret: "SHOP_PASSWORD" },
        { action: "fill_secret", selector: "#b", secret: "SHOP_PASSWORD" },
      ],
    });
    assert.ok((await admitTask(twice, ports)).admitted);
    assert.deepEqual(asked.reveals, ["SHOP_PASSWORD"]);
  });

  test("1. a missing write approval comes first, and nothing else is looked at", async () => {
    // Everything else would be refused too: secret approval, an undeclared secret, allowedHosts, the target.
    const { ports, asked } = recordingPorts({ hostsRefused: "never", blockCode: "ip_blocked", secrets: memoryVault() });
    const refused = await admitTask({ ...writeWithSecret(), approved: false, secretApproval: false }, ports);
    assert.ok(!refused.admitted);
    assert.deepEqual(refused.refusal, { code: "approval_required", message: `A consequential task runs only with "approved": true.` });
    assert.deepEqual(refused.preflight, []);
    assert.deepEqual(asked, { scopes: [], hostChecks: [], preflights: [], reveals: [] }, "nothing revealed, narrowed or resolved");
  });

  test("2. then the secret approval, still before any secret is revealed", async () => {
    const { ports, asked } = recordingPorts({ hostsRefused: "never", blockCode: "ip_blocked" });
    const refused = await admitTask({ ...writeWithSecret(), secretApproval: false }, ports);
    assert.ok(!refused.admitted);
    assert.deepEqual(refused.refusal, { code: "secret_approval_required", message: `This task uses fill_secret; it runs only with "secretApproval": true.` });
    assert.deepEqual(asked.reveals, []);
    assert.deepEqual(asked.preflights, []);
  });

  test("3. then each named secret must be declared and readable (the vault's own code), before the hosts and the target", async () => {
    const { ports, asked } = recordingPorts({ hostsRefused: "never", blockCode: "ip_blocked", secrets: memoryVault() });
    const refused = await admitTask(writeWithSecret(), ports);
    assert.ok(!refused.admitted);
    assert.equal(refused.refusal.code, "secret_unknown");
    assert.match(refused.refusal.message, /No secret named SHOP_PASSWORD/);
    assert.deepEqual(asked.hostChecks, []);
    assert.deepEqual(asked.preflights, []);
  });

  test("3. a vault that fails in a way it does not name is internal_error, its words scrubbed of the values already revealed", async () => {
    const vault = memoryVault({ SHOP_PASSWORD: { sites: ["https://shop.example"], value: SECRET } });
    const failing: AdmissionPorts["secrets"] = {
      reveal: (name) => (name === "SHOP_PASSWORD" ? vault.reveal(name) : Promise.reject(new Error(`disk error near ${SECRET}\nstack`))),
    };
    const { ports } = recordingPorts({ secrets: failing });
    const task = writeWithSecret({
      steps: [
        { action: "fill_secret", selector: "#a", secret: "SHOP_PASSWORD" },
        { action: "fill_secret", selector: "#b", secret: "OTHER_ONE" },
      ],
    });
    const refused = await admitTask(task, ports);
    assert.ok(!refused.admitted);
    assert.equal(refused.refusal.code, "internal_error");
    assert.equal(refused.refusal.message, "Reading the declared secret OTHER_ONE failed: disk error near [REDACTED]");
  });

  test("3. a SecretError keeps its code (secret_missing)", async () => {
    const { ports } = recordingPorts({
      secrets: { reveal: () => Promise.reject(new SecretError("secret_missing", "The environment variable behind SHOP_PASSWORD is not set.")) },
    });
    const refused = await admitTask(writeWithSecret(), ports);
    assert.ok(!refused.admitted);
    assert.deepEqual(refused.refusal, { code: "secret_missing", message: "The environment variable behind SHOP_PASSWORD is not set." });
  });

  test("4. then allowedHosts the policy could never honour, before the target is resolved", async () => {
    const { ports, asked } = recordingPorts({ hostsRefused: `"metadata.google.internal" can never be reached`, blockCode: "ip_blocked" });
    const refused = await admitTask(makeTask({ allowedHosts: ["metadata.google.internal"] }), ports);
    assert.ok(!refused.admitted);
    assert.deepEqual(refused.refusal, {
      code: "invalid_allowed_host",
      message: `allowedHosts cannot be honoured: "metadata.google.internal" can never be reached`,
    });
    assert.deepEqual(asked.hostChecks, [["metadata.google.internal"]]);
    assert.deepEqual(asked.preflights, []);
  });

  test("5. last, the target's preflight: its own code, and its verdict kept as evidence", async () => {
    const { ports } = recordingPorts({ blockCode: "ip_blocked" });
    const refused = await admitTask(makeTask({}), ports);
    assert.ok(!refused.admitted);
    assert.deepEqual(refused.refusal, {
      code: "ip_blocked",
      message: "The target https://shop.example/ was refused before the browser opened: it resolves to a private address",
    });
    assert.deepEqual(
      refused.preflight.map((v) => `${v.url}:${v.verdict}:${v.code}`),
      ["https://shop.example/:block:ip_blocked"],
    );
  });

  test("5. a policy code that is not one of errand's becomes network_blocked; dns_failed stays dns_failed", async () => {
    const odd = await admitTask(makeTask({}), recordingPorts({ blockCode: "policy_said_no" }).ports);
    assert.ok(!odd.admitted);
    assert.equal(odd.refusal.code, "network_blocked");
    const dns = await admitTask(makeTask({}), recordingPorts({ blockCode: "dns_failed" }).ports);
    assert.ok(!dns.admitted);
    assert.equal(dns.refusal.code, "dns_failed");
  });

  test("a refusal after a secret was revealed is scrubbed of it (the target URL carries it here)", async () => {
    const { ports } = recordingPorts({ blockCode: "ip_blocked" });
    const refused = await admitTask(writeWithSecret({ target: { url: `https://shop.example/?p=${SECRET}` } }), ports);
    assert.ok(!refused.admitted);
    assert.ok(!refused.refusal.message.includes(SECRET), refused.refusal.message);
    assert.match(refused.refusal.message, /\[REDACTED\]/);
  });
});

describe("refusalOutcome: the one receipt of a refusal before any browser", () => {
  test("BLOCKED, every step skipped, no page, the preflight evidence, the provider named, and why a screenshot is missing", async () => {
    const task = makeTask({
      evidence: { screenshots: "final" },
      steps: [
        { action: "expect_text", text: "Shop" },
        { action: "extract_text", selector: "h1", name: "title" },
      ],
    });
    const refused = await admitTask(task, recordingPorts({ blockCode: "ip_blocked" }).ports);
    assert.ok(!refused.admitted);
    const { receipt, ephemeral } = refusalOutcome({
      task,
      ...context,
      provider: "local",
      startedAt: new Date(),
      refusal: refused.refusal,
      preflight: refused.preflight,
      redactor: refused.redactor,
    });
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.provider, "local");
    assert.equal(receipt.finalUrl, null);
    assert.deepEqual(receipt.error, { code: "ip_blocked", message: refused.refusal.message, step: null });
    assert.deepEqual(receipt.steps, [
      { index: 0, action: "expect_text", status: "skipped", durationMs: 0 },
      { index: 1, action: "extract_text", status: "skipped", durationMs: 0 },
    ]);
    assert.equal(receipt.mutationBoundary, "not_crossed");
    assert.equal(receipt.network.preflight.length, 1);
    assert.equal(receipt.network.preflight[0]?.code, "ip_blocked");
    assert.deepEqual(receipt.artifacts, []);
    assert.equal(receipt.artifactsOmitted, "The attempt was refused before any browser opened; there was no page to capture.");
    assert.deepEqual(receipt.fallback, []);
    assert.deepEqual(ephemeral, { ephemeral: true, outputs: {} });
  });

  test("quoted words (a provider's answer) go to error.detail, wrapped as untrusted and scrubbed", async () => {
    const admission = await admitTask(writeWithSecret(), recordingPorts().ports);
    assert.ok(admission.admitted);
    const { receipt } = refusalOutcome({
      task: writeWithSecret(),
      ...context,
      provider: "kernel",
      startedAt: new Date(),
      refusal: { code: "provider_auth_failed", message: "kernel refused errand's API key (401).", detail: `bad key near ${SECRET}` },
      preflight: admission.preflight,
      redactor: admission.redactor,
    });
    assert.deepEqual(receipt.error?.detail, { untrusted: true, text: "bad key near [REDACTED]" });
  });

  test("issue 13's split holds for admission refusals: the task's own stay final, the resolver's (dns_failed) reruns on resubmit", async () => {
    const receiptOf = async (task: Task, ports: AdmissionPorts) => {
      const admission = await admitTask(task, ports);
      assert.ok(!admission.admitted);
      return refusalOutcome({
        task,
        ...context,
        provider: "none",
        startedAt: new Date(),
        refusal: admission.refusal,
        preflight: admission.preflight,
        redactor: admission.redactor,
      }).receipt;
    };
    const final = [
      await receiptOf({ ...writeWithSecret(), approved: false }, recordingPorts().ports),
      await receiptOf({ ...writeWithSecret(), secretApproval: false }, recordingPorts().ports),
      await receiptOf(writeWithSecret(), recordingPorts({ secrets: memoryVault() }).ports),
      await receiptOf(makeTask({ allowedHosts: ["x.internal"] }), recordingPorts({ hostsRefused: "never" }).ports),
      await receiptOf(makeTask({}), recordingPorts({ blockCode: "ip_blocked" }).ports),
    ];
    assert.deepEqual(
      final.map((r) => [r.error?.code, isEnvironmentRefusal(r)]),
      [
        ["approval_required", false],
        ["secret_approval_required", false],
        ["secret_unknown", false],
        ["invalid_allowed_host", false],
        ["ip_blocked", false],
      ],
    );
    const dns = await receiptOf(makeTask({}), recordingPorts({ blockCode: "dns_failed" }).ports);
    assert.equal(isEnvironmentRefusal(dns), true);
  });
});
