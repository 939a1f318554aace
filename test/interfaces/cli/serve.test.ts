// errand serve as a real process (the printed URLs, refusing to start unsafely, REST and /healthz
// against a running server) and errand token, owner and doctor in process: tokens printed once and
// stored only as hashes, the owner's password only as a scrypt hash.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { startFixtureSites } from "../../fixtures/fixtureSite.js";
import { runErrand, startServe } from "../../support/errandProcess.js";
import type { ErrandRun, ServedErrand } from "../../support/errandProcess.js";
import { runErrandInProcess } from "../../support/errandInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-serve-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const PASSWORD = "a long owner password";

function home(name: string): string {
  return join(scratch, name);
}

/** `errand ...args` in process (a command that ends by itself). */
function errand(errandHome: string, args: string[], stdin = "", extraEnv: Record<string, string> = {}): Promise<ErrandRun> {
  return runErrandInProcess(args, { env: { ERRAND_HOME: errandHome, ...extraEnv }, stdin });
}

/** `errand serve ...args` as a real process expected to refuse to start (a start it should have refused stays out of this process). */
function serveRefusal(errandHome: string, args: string[], extraEnv: Record<string, string> = {}): Promise<ErrandRun> {
  return runErrand(["serve", ...args], { env: { ERRAND_HOME: errandHome, ...extraEnv } });
}

/** Starts errand serve on an OS-chosen loopback port and waits for its start-up banner. */
function serve(errandHome: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<ServedErrand> {
  return startServe(args, { env: { ERRAND_HOME: errandHome, ...extraEnv }, startTimeoutMs: 20_000 });
}

function storedBytes(errandHome: string): string {
  return readdirSync(errandHome)
    .filter((f) => f.startsWith("errand.db"))
    .map((f) => readFileSync(join(errandHome, f)).toString("latin1"))
    .join("");
}

describe("errand owner, token and serve", { timeout: 400_000 }, () => {
  test("owner set-password refuses a short password and stores only a scrypt hash", async () => {
    const h = home("owner");
    const short = await errand(h, ["owner", "set-password"], "short\n");
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 10 characters/);
    const ok = await errand(h, ["owner", "set-password"], `${PASSWORD}\n`);
    assert.equal(ok.code, 0, ok.stderr);
    const bytes = storedBytes(h);
    assert.ok(bytes.includes("scrypt$15$8$1$"));
    assert.ok(!bytes.includes(PASSWORD), "the password itself is never stored");
  });

  test("serve refuses to start without an owner password, or on a non-loopback address without a public https URL", async () => {
    const none = await serveRefusal(home("nopass"), ["--port", "0"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No owner password is set.*errand owner set-password.*\[configuration_error\]/s);
    const wide = await serveRefusal(home("wide"), ["--host", "0.0.0.0", "--port", "0"], { ERRAND_OWNER_PASSWORD: PASSWORD });
    assert.equal(wide.code, 1);
    assert.match(wide.stderr, /--public-url/);
    const http = await serveRefusal(home("wide"), ["--public-url", "http://errand.example.com", "--port", "0"], { ERRAND_OWNER_PASSWORD: PASSWORD });
    assert.match(http.stderr, /must use https/);
    const redirects = await serveRefusal(home("wide"), ["--port", "0"], {
      ERRAND_OWNER_PASSWORD: PASSWORD,
      ERRAND_OAUTH_EXTRA_REDIRECTS: "http://evil.example/cb",
    });
    assert.match(redirects.stderr, /ERRAND_OAUTH_EXTRA_REDIRECTS/);
  });

  test("token create prints the token alone, once; list shows no secret; REST works with it until it is revoked", async () => {
    const h = home("tokens");
    const created = await errand(h, ["token", "create", "--name", "ci"]);
    assert.equal(created.code, 0, created.stderr);
    const lines = created.stdout.split("\n").filter((l) => l !== "");
    assert.equal(lines.length, 1);
    const token = lines[0] ?? "";
    assert.match(token, /^errand_api_[A-Za-z0-9_-]{43}$/);
    assert.match(created.stderr, /tok_[0-9a-f]{16} "ci"/);
    assert.match(created.stderr, /scope own: it sees only the operations it submits/);
    const operator = await errand(h, ["token", "create", "--name", "ops", "--scope", "all"]);
    assert.equal(operator.code, 0, operator.stderr);
    const operatorToken = operator.stdout.trim();
    assert.match(operatorToken, /^errand_op_[A-Za-z0-9_-]{43}$/, "an operator token is told apart by its prefix");
    const wrongScope = await errand(h, ["token", "create", "--name", "x", "--scope", "everything"]);
    assert.equal(wrongScope.code, 2);
    assert.match(wrongScope.stderr, /--scope is "own" .*"all" .* or "metrics"/);
    const listed = await errand(h, ["token", "list", "--json"]);
    const tokens = (JSON.parse(listed.stdout) as { data: { tokens: { tokenId: string; name: string; scope: string; revokedAt: string | null }[] } }).data
      .tokens;
    assert.deepEqual(
      tokens.map((t) => [t.name, t.scope, t.revokedAt]),
      [
        ["ci", "own", null],
        ["ops", "all", null],
      ],
    );
    assert.match((await errand(h, ["token", "list"])).stdout, /ops {2}scope all/);
    assert.ok(!listed.stdout.includes(token) && !listed.stdout.includes(operatorToken));
    assert.ok(!storedBytes(h).includes(token), "only a hash of the token is stored");

    const served = await serve(h, [], { ERRAND_OWNER_PASSWORD: PASSWORD });
    try {
      assert.match(served.stdout(), new RegExp(`MCP URL: ${served.origin}/mcp`));
      assert.match(served.stdout(), /Next: ChatGPT cannot reach a loopback address/);
      const health = await fetch(`${served.origin}/healthz`);
      assert.equal(await health.text(), '{"ok":true}');
      assert.equal((await fetch(`${served.origin}/v1/status`)).status, 401);
      const mcp = await fetch(`${served.origin}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      assert.equal(mcp.status, 401);
      assert.match(mcp.headers.get("www-authenticate") ?? "", /resource_metadata=/);
      const status = await fetch(`${served.origin}/v1/status`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(status.status, 200);
      assert.ok((await status.json()) !== null);
      assert.equal((await fetch(`${served.origin}/v1/status`, { headers: { authorization: `Bearer ${operatorToken}` } })).status, 200);
      const revoked = await errand(h, ["token", "revoke", "ci"]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(
        (await fetch(`${served.origin}/v1/status`, { headers: { authorization: `Bearer ${token}` } })).status,
        401,
        "revocation applies to the running server at once",
      );
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("with --public-url the issuer, resource and Host checks use it", async () => {
    const served = await serve(home("public"), ["--public-url", "https://errand.example.com"], { ERRAND_OWNER_PASSWORD: PASSWORD });
    try {
      assert.match(served.stdout(), /MCP URL: https:\/\/errand\.example\.com\/mcp/);
      assert.match(served.stdout(), /Next: in ChatGPT, Settings > Apps/);
      const prm = (await (await fetch(`${served.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        resource: string;
        authorization_servers: string[];
      };
      assert.equal(prm.resource, "https://errand.example.com/mcp");
      assert.deepEqual(prm.authorization_servers, ["https://errand.example.com"]);
      assert.match(
        served.stderr(),
        /ERRAND_TRUSTED_PROXIES is empty, but the public URL is https/,
        "an https public URL means a proxy in front: serve says it is not trusted",
      );
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("as a service: ERRAND_* variables instead of flags, /readyz, /metrics names after a run, one JSON log line per request and per attempt", async () => {
    const h = home("service");
    const sites = await startFixtureSites();
    const created = await errand(h, ["token", "create", "--name", "metrics"]);
    const token = created.stdout.trim();
    const served = await serve(h, [], {
      ERRAND_OWNER_PASSWORD: PASSWORD,
      ERRAND_LOG_FORMAT: "json",
      ERRAND_ALLOW_PRIVATE: sites.site.origin.slice("http://".length),
    });
    let stderr = "";
    served.child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const ready = await fetch(`${served.origin}/readyz`);
      assert.equal(ready.status, 200, await ready.clone().text());
      assert.deepEqual(
        ((await ready.json()) as { checks: { name: string; ok: boolean }[] }).checks.map((c) => [c.name, c.ok]),
        [
          ["store", true],
          ["key", true],
          ["browser", true],
        ],
      );
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const operationId = crypto.randomUUID();
      const task = {
        schemaVersion: "errand.task.v1",
        operationId,
        risk: "read_only",
        target: { url: `${sites.site.origin}/` },
        steps: [{ action: "expect_text", text: "Fixture Home" }],
      };
      assert.equal((await fetch(`${served.origin}/v1/operations`, { method: "POST", headers: auth, body: JSON.stringify(task) })).status, 201);
      const ran = await fetch(`${served.origin}/v1/runner`, { method: "POST", headers: auth, body: JSON.stringify({ waitSeconds: 60 }) });
      assert.equal(ran.status, 200, await ran.clone().text());
      assert.equal((await fetch(`${served.origin}/metrics`)).status, 401, "metrics need an API token");
      const metrics = await fetch(`${served.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(metrics.status, 200);
      const text = await metrics.text();
      for (const name of [
        "errand_operations",
        "errand_operations_finished_total",
        "errand_attempt_duration_seconds",
        "errand_queue_depth",
        "errand_lease_recoveries_total",
        "errand_breaker_state",
        "errand_provider_usage",
        "errand_provider_budget",
        "errand_egress_refusals_total",
        "errand_auth_failures_total",
      ]) {
        assert.match(text, new RegExp(`^# TYPE ${name} `, "m"), name);
      }
      assert.match(text, /^errand_operations_finished_total\{status="PASS",provider="local"\} 1$/m);
      assert.match(text, /^errand_attempt_duration_seconds_count\{provider="local",status="PASS"\} 1$/m);
      assert.match(text, /^errand_auth_failures_total\{endpoint="metrics"\} 0$|^# TYPE errand_auth_failures_total/m);
      assert.match(text, /^errand_journal_compactions_total\{outcome="compacted"\} 1$/m, "the compaction at start ran (nothing was old enough)");
      assert.match(text, /^# TYPE errand_journal_compacted_operations_total counter$/m);
    } finally {
      assert.equal(await served.stop(), 0);
      await sites.close();
    }
    const lines = stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const attempt = lines.find((l) => l["msg"] === "attempt");
    assert.ok(attempt !== undefined, stderr);
    assert.equal(attempt["status"], "PASS");
    assert.equal(attempt["provider"], "local");
    assert.equal(typeof attempt["ms"], "number");
    assert.ok(lines.some((l) => l["msg"] === "request" && l["path"] === "/v1/runner" && l["status"] === 200 && typeof l["requestId"] === "string"));
    assert.match(served.stderr(), /\{[^\n]*"msg":"journal compaction scheduled"[^\n]*\}/, "the compaction schedule is announced");
    const scheduled = served
      .stderr()
      .split("\n")
      .filter((l) => l.includes("journal compaction scheduled"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual([scheduled[0]?.["compactAfter"], scheduled[0]?.["every"]], ["30d", "1h"], "with its default and interval");
    // Nothing but JSON log lines on either stream: the banner, notices and the shutdown line included.
    for (const line of [...served.stdout().split("\n"), ...stderr.split("\n")].filter((l) => l !== "")) {
      const record = JSON.parse(line) as Record<string, unknown>;
      assert.ok(typeof record["time"] === "string" && typeof record["level"] === "string" && typeof record["msg"] === "string", line);
    }
    assert.ok(
      lines.some((l) => String(l["msg"]).includes("stopping")),
      "the shutdown line is JSON",
    );
    assert.ok(
      !lines.some((l) => l["msg"] === "request" && (l["path"] === "/readyz" || (l["path"] === "/metrics" && l["status"] === 200))),
      "probes and scrapes are not logged at info",
    );
    assert.ok(!stderr.includes(token) && !stderr.includes(PASSWORD) && !stderr.includes("Fixture Home"), "no token, password or page text in the log");
  });

  test("readyz answers 503 naming the browser when no Chromium is found and no cloud provider is configured", async () => {
    const served = await serve(home("no-browser"), [], { ERRAND_OWNER_PASSWORD: PASSWORD, CHROME_PATH: "/nonexistent/chromium" });
    try {
      const ready = await fetch(`${served.origin}/readyz`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { ready: boolean; checks: { name: string; ok: boolean; reason: string | null }[] };
      assert.equal(body.ready, false);
      const browser = body.checks.find((c) => c.name === "browser");
      assert.equal(browser?.ok, false);
      assert.match(browser?.reason ?? "", /No Chromium found/);
      assert.equal((await fetch(`${served.origin}/healthz`, { headers: { host: "10.0.0.7:8787" } })).status, 200, "liveness still answers, by any Host");
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("a password set with owner set-password counts in the running server at once; forwarded headers from an untrusted peer are warned about once and errand doctor names the peer", async () => {
    const h = home("live-owner");
    assert.equal((await errand(h, ["owner", "set-password"], `${PASSWORD}\n`)).code, 0);
    mkdirSync(h, { recursive: true });
    writeFileSync(
      join(h, "forwarded-headers.json"),
      JSON.stringify({ peer: "192.0.2.99", header: "forwarded", firstSeenMs: 1, lastSeenMs: 1, requests: 1, trustedProxies: [] }),
    );
    const served = await serve(h);
    try {
      assert.ok(!existsSync(join(h, "forwarded-headers.json")), "a start forgets what an earlier server saw");
      const login = async (password: string): Promise<Response> => {
        const page = await fetch(`${served.origin}/owner`);
        const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
        const cookie = (page.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
        return fetch(`${served.origin}/owner/login`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", origin: served.origin, cookie, "x-forwarded-for": "203.0.113.5" },
          body: new URLSearchParams({ csrf, next: "/owner", password }).toString(),
        });
      };
      assert.equal((await login(PASSWORD)).status, 303);
      const NEW_PASSWORD = "the owner's brand new password";
      assert.equal((await errand(h, ["owner", "set-password"], `${NEW_PASSWORD}\n`)).code, 0);
      const refused = await login(PASSWORD);
      assert.equal(refused.status, 401, "the old password stops working without a restart");
      assert.match(
        await refused.text(),
        /Wrong password\. 4 more wrong answers from your address lock it for 15 minutes \(errand owner unlock on the errand host lifts a lock\)/,
      );
      assert.equal((await login(NEW_PASSWORD)).status, 303, "the new one works at once");

      const warnings = served
        .stderr()
        .split("\n")
        .filter((l) => l.includes("ERRAND_TRUSTED_PROXIES does not list"));
      assert.equal(warnings.length, 1, served.stderr());
      const doctor = await errand(h, ["doctor", "--offline", "--json"], "", { CHROME_PATH: "/nonexistent/chromium" });
      const checks = (JSON.parse(doctor.stdout) as { data: { checks: { name: string; ok: boolean; detail: string; fix: string | null }[] } }).data.checks;
      const proxy = checks.find((c) => c.name === "proxy headers");
      assert.equal(proxy?.ok, false, doctor.stdout);
      assert.match(proxy?.detail ?? "", /x-forwarded-for from (::ffff:)?127\.0\.0\.1.*ERRAND_TRUSTED_PROXIES is empty/);
      assert.match(proxy?.fix ?? "", /add it to ERRAND_TRUSTED_PROXIES/);
      assert.equal(doctor.code, 1);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test("ERRAND_COMPACT_AFTER shorter than a day is refused at start, naming the variable and the rule", async () => {
    const bad = await serveRefusal(home("badcompact"), [], { ERRAND_OWNER_PASSWORD: PASSWORD, ERRAND_COMPACT_AFTER: "6m" });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /ERRAND_COMPACT_AFTER="6m" is not usable: .*at least 1d.*"off"/);
  });

  test("ERRAND_PORT is refused when it is not a port, like --port", async () => {
    const bad = await serveRefusal(home("badport"), [], { ERRAND_OWNER_PASSWORD: PASSWORD, ERRAND_PORT: "eighty" });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /ERRAND_PORT/);
  });
});
