// In-process route tests (app.request) for /healthz, discovery, OAuth endpoints, /mcp auth and the
// REST API: every security rule here has a test that tries to break it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { describe, test } from "node:test";
import { REST_ENDPOINTS } from "../../../src/interfaces/http/rest/restEndpoints.js";
import { makeTempHome, manualClock } from "../../operations/support/harness.js";
import { readTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import { parsePrometheusText } from "./support/prometheusText.js";
import type { AppHarness, HarnessOptions } from "./support/appHarness.js";
import { answerConsent, inProcess, obtainGrant, openConsent, pkcePair } from "./support/oauthDance.js";

const ORIGIN = "http://127.0.0.1:8787";

async function withHarness(body: (h: AppHarness) => Promise<void>, options: HarnessOptions = {}): Promise<void> {
  const h = await openAppHarness(options);
  try {
    await body(h);
  } finally {
    await h.close();
  }
}

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;
const mcpHeaders = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" });
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

async function register(h: AppHarness, redirectUris: unknown, extra: Record<string, unknown> = {}): Promise<Response> {
  return h.request("/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "t", redirect_uris: redirectUris, token_endpoint_auth_method: "none", ...extra }),
  });
}

async function authorizeQuery(h: AppHarness, overrides: Record<string, string | undefined> = {}): Promise<string> {
  const registered = await json(await register(h, [CALLBACK]));
  const { challenge } = await pkcePair();
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: String(registered["client_id"]),
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "xyz",
    ...overrides,
  };
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return `/authorize?${query.toString()}`;
}

describe("/healthz and what is public", () => {
  test('/healthz answers {"ok":true} and nothing else, without auth', () =>
    withHarness(async (h) => {
      const response = await h.request("/healthz");
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '{"ok":true}');
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
      assert.equal(response.headers.get("server"), null);
      assert.equal((await h.request("/healthz", { method: "POST" })).status, 404);
    }));

  test("unknown paths are 404 not_found without internals; the root says nothing", () =>
    withHarness(async (h) => {
      for (const path of ["/", "/admin", "/v2/operations", "/.env", "/mcp/../v1/status"]) {
        const response = await h.request(path);
        assert.ok(response.status === 404 || response.status === 401, `${path}: ${response.status}`);
        const text = await response.text();
        assert.doesNotMatch(text, /\/work\/|node_modules|at [A-Za-z]+ \(|\.ts:\d+/);
      }
    }));

  test("/healthz answers any Host (a probe by container IP); every other path refuses a Host errand does not serve", () =>
    withHarness(async (h) => {
      for (const host of ["evil.example", "evil.example:8787", "127.0.0.1:9999", "127.0.0.1.nip.io:8787", "172.17.0.2:8787", ""]) {
        const health = await h.request("/healthz", { headers: { host } });
        assert.equal(health.status, 200, host);
        assert.deepEqual(await json(health), { ok: true }, "liveness says nothing else");
        for (const path of ["/readyz", "/metrics", "/v1/status", "/.well-known/oauth-authorization-server", "/nothing"]) {
          const response = await h.request(path, { headers: { host } });
          assert.equal(response.status, 403, `${path} with Host ${host}`);
          assert.equal((await json(response))["error"] !== undefined, true);
        }
      }
      for (const host of ["127.0.0.1:8787", "localhost:8787", "LOCALHOST:8787", "[::1]:8787"])
        assert.equal((await h.request("/readyz", { headers: { host } })).status, 200, host);
    }));

  test("a public URL is checked as the Host too, and only it besides loopback names", () =>
    withHarness(
      async (h) => {
        assert.equal((await h.request("/readyz", { headers: { host: "errand.example.com" } })).status, 200);
        assert.equal((await h.request("/readyz", { headers: { host: "other.example.com" } })).status, 403);
      },
      { settings: { allowedHosts: new Set(["errand.example.com", "127.0.0.1:8787"]) } },
    ));

  test("/readyz answers 503 with every reason when a check fails, 200 when all hold", () =>
    withHarness(
      async (h) => {
        const response = await h.request("/readyz");
        assert.equal(response.status, 503);
        const body = (await json(response)) as { ready: boolean; checks: { name: string; ok: boolean; reason: string | null }[] };
        assert.equal(body.ready, false);
        assert.deepEqual(
          body.checks.map((c) => [c.name, c.ok]),
          [
            ["store", true],
            ["browser", false],
          ],
        );
        assert.match(body.checks[1]?.reason ?? "", /No Chromium/);
      },
      {
        readiness: () =>
          Promise.resolve({
            ready: false,
            checks: [
              { name: "store", ok: true, reason: null },
              { name: "browser", ok: false, reason: "No Chromium found." },
            ],
          }),
      },
    ));

  test("/metrics needs an API token, counts the refused ones, and answers Prometheus text with errand_ names", () =>
    withHarness(async (h) => {
      assert.equal((await h.request("/metrics")).status, 401);
      assert.equal((await h.request("/metrics", { headers: { authorization: "Bearer errand_api_wrong" } })).status, 401);
      await h.ops.service.submit(readTask(randomUUID()));
      const token = await h.apiToken();
      const response = await h.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      assert.match(text, /^errand_operations\{phase="queued"\} 1$/m);
      assert.match(text, /^errand_queue_depth 1$/m);
      assert.match(text, /^errand_auth_failures_total\{endpoint="metrics"\} 1$/m);
      assert.match(text, /^errand_provider_usage\{provider="kernel",unit="gb_second"\} 12$/m);
      assert.match(text, /^errand_provider_budget\{provider="kernel",unit="gb_second"\} 100$/m);
      // errand's own names, plus Node's process metrics (prom-client's defaults); the whole text is clean exposition format.
      for (const line of text.split("\n").filter((l) => l !== "" && !l.startsWith("#"))) assert.match(line, /^(errand_|process_|nodejs_)/, line);
      const samples = parsePrometheusText(text);
      assert.deepEqual(samples.find((s) => s.name === "errand_build_info")?.labels, { version: "test", commit: "unknown" });
      assert.ok(
        samples.some((s) => s.name === "process_cpu_seconds_total"),
        "process metrics",
      );
      assert.ok(
        samples.some((s) => s.name === "nodejs_eventloop_lag_seconds"),
        "event loop lag",
      );
    }));

  test("a metrics token reads /metrics and nothing else; an expired token gets 401 saying it expired; last use is recorded", () =>
    withHarness(async (h) => {
      const scraper = await h.apiToken("prometheus", "metrics");
      assert.match(scraper, /^errand_mt_/);
      assert.equal((await h.request("/metrics", { headers: { authorization: `Bearer ${scraper}` } })).status, 200);
      for (const [path, method] of [
        ["/v1/status", "GET"],
        ["/v1/operations", "POST"],
        ["/v1/openapi.json", "GET"],
      ] as const) {
        const refused = await h.request(path, {
          method,
          headers: { authorization: `Bearer ${scraper}`, "content-type": "application/json" },
          ...(method === "POST" ? { body: JSON.stringify(readTask(randomUUID())) } : {}),
        });
        assert.equal(refused.status, 401, path);
        assert.match(String(((await json(refused))["error"] as { message: string }).message), /metrics token/, path);
      }
      assert.equal((await h.ops.service.listOperations({ limit: 10 })).length, 0, "the metrics token submitted nothing");
      // A metrics token's kind is its own: the same secret presented as another kind is unknown.
      assert.equal((await h.request("/v1/status", { headers: { authorization: `Bearer ${scraper.replace("errand_mt_", "errand_api_")}` } })).status, 401);
      const expired = await h.apiToken("old", "own", Date.now() - 1);
      const answer = await h.request("/v1/status", { headers: { authorization: `Bearer ${expired}` } });
      assert.equal(answer.status, 401);
      assert.match(String(((await json(answer))["error"] as { message: string }).message), /expired at \d{4}-/);
      const live = await h.apiToken("live", "own", Date.now() + 86_400_000);
      assert.equal((await h.request("/v1/status", { headers: { authorization: `Bearer ${live}` } })).status, 200);
      const listed = await h.access.listApiTokens();
      assert.equal(typeof listed.find((t) => t.name === "live")?.lastUsedMs, "number");
      assert.equal(typeof listed.find((t) => t.name === "prometheus")?.lastUsedMs, "number");
      assert.equal(listed.find((t) => t.name === "old")?.lastUsedMs, null, "a refused token is not counted as used");
    }));

  test("/metrics has a request-duration histogram by route pattern (never the raw path) and status", () =>
    withHarness(async (h) => {
      const token = await h.apiToken();
      const auth = { authorization: `Bearer ${token}` };
      const [one, two] = [randomUUID(), randomUUID()];
      for (const id of [one, two]) assert.equal((await h.request(`/v1/operations/${id}`, { headers: auth })).status, 404);
      assert.equal((await h.request("/v1/status", { headers: auth })).status, 200);
      await h.request("/nothing/at/all");
      const text = await (await h.request("/metrics", { headers: auth })).text();
      const samples = parsePrometheusText(text).filter((s) => s.name === "errand_http_request_duration_seconds_count");
      const count = (route: string, status: string) =>
        samples.find((s) => s.labels["route"] === route && s.labels["status"] === status && s.labels["method"] === "GET")?.value;
      assert.equal(count("/v1/operations/:operationId", "404"), 2, text);
      assert.equal(count("/v1/status", "200"), 1);
      assert.equal(count("unmatched", "404"), 1);
      assert.ok(!text.includes(one) && !text.includes(two) && !text.includes("/nothing/at/all"), "no raw path or id in a label");
    }));

  test("every answer carries X-Request-Id, which the access-log line carries too; a caller's plain id is kept, an odd one replaced", () =>
    withHarness(async (h) => {
      const own = await h.request("/nothing");
      const id = own.headers.get("x-request-id") ?? "";
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(h.logs.find((l) => l.message === "request" && l.fields?.["path"] === "/nothing")?.fields?.["route"], "unmatched");
      const kept = await h.request("/v1/status", { headers: { "x-request-id": "proxy-req-0123456789" } });
      assert.equal(kept.headers.get("x-request-id"), "proxy-req-0123456789");
      assert.equal(kept.status, 401, "an unauthenticated answer carries it too");
      const odd = await h.request("/v1/status", { headers: { "x-request-id": 'an id with "quotes" and spaces' } });
      assert.match(odd.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    }));

  test("successful probes and scrapes (/healthz, /readyz, /metrics) are logged at debug, not info; a failing one at info", () =>
    withHarness(async (h) => {
      const token = await h.apiToken();
      await h.request("/healthz");
      await h.request("/readyz");
      await h.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
      await h.request("/metrics");
      const levels = (path: string) =>
        h.logs.filter((l) => l.message === "request" && l.fields?.["path"] === path).map((l) => `${l.level} ${String(l.fields?.["status"])}`);
      assert.deepEqual(levels("/healthz"), ["debug 200"]);
      assert.deepEqual(levels("/readyz"), ["debug 200"]);
      assert.deepEqual(levels("/metrics"), ["debug 200", "info 401"]);
    }));

  test("one access-log line per request: method, path without the query, status, duration", () =>
    withHarness(async (h) => {
      await h.request("/nothing?code=SECRET-CODE&state=abc");
      const line = h.logs.find((l) => l.message === "request" && l.fields?.["path"] === "/nothing");
      assert.ok(line !== undefined, JSON.stringify(h.logs));
      assert.equal(line.fields?.["status"], 404);
      assert.equal(line.fields?.["method"], "GET");
      assert.equal(typeof line.fields?.["ms"], "number");
      assert.ok(!JSON.stringify(h.logs).includes("SECRET-CODE"), "the query string is never logged");
    }));

  test("protected-resource metadata (both locations) and authorization-server metadata", () =>
    withHarness(async (h) => {
      for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
        const prm = await json(await h.request(path));
        assert.equal(prm["resource"], `${ORIGIN}/mcp`);
        assert.deepEqual(prm["authorization_servers"], [ORIGIN]);
        assert.deepEqual(prm["scopes_supported"], ["tasks"], "offline_access is the authorization server's scope, not the resource's");
      }
      const as = await json(await h.request("/.well-known/oauth-authorization-server"));
      assert.equal(as["issuer"], ORIGIN);
      assert.deepEqual(as["code_challenge_methods_supported"], ["S256"]);
      assert.deepEqual(as["grant_types_supported"], ["authorization_code", "refresh_token"]);
      assert.equal(as["registration_endpoint"], `${ORIGIN}/register`);
      assert.ok((as["scopes_supported"] as string[]).includes("offline_access"));
    }));
});

describe("/mcp needs an OAuth access token for this resource", () => {
  test("no token and bad tokens get 401 with WWW-Authenticate resource_metadata; API tokens are not OAuth tokens", () =>
    withHarness(async (h) => {
      const none = await h.request("/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      assert.equal(none.status, 401);
      assert.equal(none.headers.get("www-authenticate"), `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp", scope="tasks"`);
      const api = await h.apiToken();
      for (const token of ["nope", "errand_at_forged", api]) {
        const response = await h.request("/mcp", { method: "POST", headers: mcpHeaders(token), body: "{}" });
        assert.equal(response.status, 401, token);
        assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token", .*resource_metadata="/);
      }
    }));

  test("a valid token: GET is 405 (stateless server), an oversized body is 413", () =>
    withHarness(async (h) => {
      const grant = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
      assert.equal((await h.request("/mcp", { headers: mcpHeaders(grant.accessToken) })).status, 405);
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1024 * 1024) } });
      assert.equal((await h.request("/mcp", { method: "POST", headers: mcpHeaders(grant.accessToken), body: big })).status, 413);
      const ok = await h.request("/mcp", {
        method: "POST",
        headers: mcpHeaders(grant.accessToken),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
      assert.equal(ok.status, 200);
    }));

  test("an access token stops working when it expires", async () => {
    const clock = manualClock(Date.now());
    await withHarness(
      async (h) => {
        const grant = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
        clock.advance(60 * 60 * 1000 + 1);
        const response = await h.request("/mcp", { method: "POST", headers: mcpHeaders(grant.accessToken), body: "{}" });
        assert.equal(response.status, 401);
        assert.match(response.headers.get("www-authenticate") ?? "", /expired/);
      },
      { clock: clock.now },
    );
  });

  test("repeated bad tokens from one address get 429; another address is unaffected", () =>
    withHarness(
      async (h) => {
        const attempt = (address: string) => h.request("/mcp", { method: "POST", headers: { ...mcpHeaders("bad"), "x-test-address": address }, body: "{}" });
        for (let i = 0; i < 5; i += 1) assert.equal((await attempt("1.1.1.1")).status, 401);
        const limited = await attempt("1.1.1.1");
        assert.equal(limited.status, 429);
        assert.ok(Number(limited.headers.get("retry-after")) >= 1);
        assert.equal((await attempt("2.2.2.2")).status, 401);
      },
      { settings: { failures: { max: 5, windowMs: 60_000, registrations: 20, registrationWindowMs: 3_600_000 } } },
    ));
});

describe("dynamic client registration", () => {
  test("only ChatGPT's callbacks and the operator's exact extras are accepted", () =>
    withHarness(async (h) => {
      for (const uri of ["https://chatgpt.com/connector/oauth/abc_123-XYZ", "https://chatgpt.com/connector_platform_oauth_redirect", CALLBACK]) {
        assert.equal((await register(h, [uri])).status, 201, uri);
      }
      const refused = [
        "https://evil.example/callback",
        "http://chatgpt.com/connector/oauth/abc",
        "https://chatgpt.com.evil.example/connector/oauth/abc",
        "https://chatgpt.com/connector/oauth/abc#frag",
        "https://chatgpt.com/connector/oauth/abc?next=https://evil.example",
        "https://chatgpt.com/connector/oauth/a/b",
        "https://chatgpt.com/connector/oauth/",
        "https://user@chatgpt.com/connector/oauth/abc",
        "http://127.0.0.1:2/callback",
        `${CALLBACK}/`,
      ];
      for (const uri of refused) {
        const response = await register(h, [uri]);
        assert.equal(response.status, 400, uri);
        assert.equal((await json(response))["error"], "invalid_redirect_uri");
      }
      assert.equal((await register(h, [])).status, 400);
      assert.equal((await register(h, "https://chatgpt.com/connector_platform_oauth_redirect")).status, 400);
      assert.equal((await register(h, [CALLBACK], { grant_types: ["client_credentials"] })).status, 400);
    }));

  test("a confidential client gets a secret once and must present it; a wrong one is invalid_client", () =>
    withHarness(async (h) => {
      const body = await json(await register(h, [CALLBACK], { token_endpoint_auth_method: "client_secret_basic" }));
      assert.ok(String(body["client_secret"]).startsWith("errand_cs_"));
      assert.equal(body["client_secret_expires_at"], 0);
      const basic = (secret: string) => `Basic ${btoa(`${String(body["client_id"])}:${secret}`)}`;
      const wrong = await h.request("/token", {
        ...form({ grant_type: "refresh_token", refresh_token: "x" }),
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic("wrong") },
      });
      assert.equal(wrong.status, 401);
      assert.equal((await json(wrong))["error"], "invalid_client");
      const right = await h.request("/token", {
        ...form({ grant_type: "refresh_token", refresh_token: "x" }),
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(String(body["client_secret"])) },
      });
      assert.equal((await json(right))["error"], "invalid_grant", "authenticated, then the bogus refresh token is refused");
    }));

  test("registrations are rate limited per address and bounded in size", () =>
    withHarness(
      async (h) => {
        for (let i = 0; i < 3; i += 1) assert.equal((await register(h, [CALLBACK])).status, 201);
        assert.equal((await register(h, [CALLBACK])).status, 429);
        const huge = await h.request("/register", {
          method: "POST",
          headers: { "content-type": "application/json", "x-test-address": "9.9.9.9" },
          body: JSON.stringify({ redirect_uris: [CALLBACK], client_name: "x".repeat(20_000) }),
        });
        assert.equal(huge.status, 413);
      },
      { settings: { failures: { max: 30, windowMs: 60_000, registrations: 3, registrationWindowMs: 3_600_000 } } },
    ));

  test("when the client table is full, the oldest never-approved client makes room; approved ones stay", () =>
    withHarness(
      async (h) => {
        const approved = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
        const second = await json(await register(h, [CALLBACK]));
        const third = await json(await register(h, [CALLBACK]));
        assert.equal(third["client_id"] !== undefined, true);
        assert.ok((await h.access.readClient(approved.clientId)) !== undefined, "the approved client was kept");
        assert.equal(await h.access.readClient(String(second["client_id"])), undefined, "the never-approved one was forgotten");
      },
      { settings: { maxClients: 2 } },
    ));
});

describe("authorization and the consent page", () => {
  test("an unknown client or an unregistered redirect_uri gets a page, never a redirect", () =>
    withHarness(async (h) => {
      const unknown = await h.request(`/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent("https://evil.example/cb")}`);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.get("location"), null);
      const path = await authorizeQuery(h, { redirect_uri: "https://chatgpt.com/connector/oauth/other" });
      const wrong = await h.request(path);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.headers.get("location"), null);
    }));

  test("missing PKCE, plain PKCE, another response type or another resource go back to the client as errors", () =>
    withHarness(async (h) => {
      const cases: [Record<string, string | undefined>, string][] = [
        [{ code_challenge: undefined }, "invalid_request"],
        [{ code_challenge_method: "plain" }, "invalid_request"],
        [{ code_challenge_method: undefined }, "invalid_request"],
        [{ response_type: "token" }, "unsupported_response_type"],
        [{ resource: "http://127.0.0.1:9999/mcp" }, "invalid_target"],
        [{ resource: `${ORIGIN}/other` }, "invalid_target"],
      ];
      for (const [overrides, error] of cases) {
        const response = await h.request(await authorizeQuery(h, overrides));
        assert.equal(response.status, 303, JSON.stringify(overrides));
        const location = new URL(response.headers.get("location") ?? "");
        assert.equal(location.searchParams.get("error"), error);
        assert.equal(location.searchParams.get("state"), "xyz");
        assert.equal(location.searchParams.get("iss"), ORIGIN);
      }
      // The bare origin names the same resource as /mcp (OpenAI's connector example sends it).
      for (const resource of [ORIGIN, `${ORIGIN}/`, `${ORIGIN}/mcp/`])
        assert.equal((await h.request(await authorizeQuery(h, { resource }))).status, 200, resource);
    }));

  test("the page shows client and redirect host, a password field, Approve and Deny, and may not be framed or post elsewhere", () =>
    withHarness(async (h) => {
      const response = await h.request(await authorizeQuery(h));
      const html = await response.text();
      assert.match(html, /<strong>t<\/strong>/);
      assert.match(html, /<strong>127\.0\.0\.1:47999<\/strong>/);
      assert.match(html, /<input id="password" type="password"/);
      assert.match(html, /value="approve">Approve<\/button>/);
      assert.match(html, /value="deny" formnovalidate>Deny<\/button>/);
      assert.equal(response.headers.get("x-frame-options"), "DENY");
      assert.equal(
        response.headers.get("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:47999; frame-ancestors 'none'; base-uri 'none'",
      );
      assert.match(response.headers.getSetCookie()[0] ?? "", /HttpOnly; SameSite=Strict/);
    }));

  test("the client name is escaped on the page", () =>
    withHarness(async (h) => {
      const registered = await json(await register(h, [CALLBACK], { client_name: '<script>alert(1)</script>"' }));
      const { challenge } = await pkcePair();
      const html = await (
        await h.request(`/authorize?response_type=code&client_id=${String(registered["client_id"])}&code_challenge=${challenge}&code_challenge_method=S256`)
      ).text();
      assert.doesNotMatch(html, /<script>/);
      assert.match(html, /&lt;script&gt;/);
    }));

  test("CSRF: no cookie, another token, a foreign Origin or a cross-site fetch are refused and approve nothing", () =>
    withHarness(async (h) => {
      const fetcher = inProcess(h.request);
      const page = await openConsent(fetcher, `${ORIGIN}${await authorizeQuery(h)}`);
      const refusals = [
        await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD, cookie: null }),
        await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD, csrf: "forged" }),
        await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD, origin: "https://evil.example" }),
        await h.request("/consent", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie, "sec-fetch-site": "cross-site" },
          body: new URLSearchParams({ request: page.request, csrf: page.csrf, password: OWNER_PASSWORD, decision: "approve" }).toString(),
        }),
      ];
      for (const response of refusals) {
        assert.equal(response.status, 403);
        assert.equal(response.headers.get("location"), null);
      }
      const ok = await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(ok.status, 303, "the genuine answer still works");
      const again = await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(again.status, 400, "a consent answers once");
    }));

  test("Deny sends access_denied back and is journaled", () =>
    withHarness(async (h) => {
      const fetcher = inProcess(h.request);
      const page = await openConsent(fetcher, `${ORIGIN}${await authorizeQuery(h)}`);
      const response = await answerConsent(fetcher, ORIGIN, page, { decision: "deny" });
      assert.equal(response.status, 303);
      assert.equal(new URL(response.headers.get("location") ?? "").searchParams.get("error"), "access_denied");
      const events = await h.ops.store.readJournalEvents(0, 100);
      assert.ok(events.some((e) => e.type === "request_recorded" && (e.body ?? "").includes("consent_denied")));
    }));

  test("wrong passwords slow down, then lock approvals (persisted, so a restart does not unlock); the right password is refused while locked", async () => {
    const settings = { lockout: { threshold: 3, baseLockMs: 60_000, maxLockMs: 600_000, slowdownStepMs: 40, slowdownMaxMs: 200, forgetMs: 86_400_000 } };
    const home = makeTempHome();
    const h = await openAppHarness({ settings, home });
    try {
      const fetcher = inProcess(h.request);
      const page = await openConsent(fetcher, `${ORIGIN}${await authorizeQuery(h)}`);
      const secondPage = await openConsent(fetcher, `${ORIGIN}${await authorizeQuery(h)}`);
      const started = Date.now();
      const first = await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: "wrong one here" });
      assert.equal(first.status, 401);
      assert.match(await first.text(), /Wrong password/);
      assert.equal((await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: "wrong again!!" })).status, 401);
      assert.ok(Date.now() - started >= 40 + 80, "each wrong answer is held back longer");
      const third = await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: "still wrong!!" });
      assert.equal(third.status, 429);
      assert.match(await third.text(), /locked until/);
      const fresh = await openConsent(fetcher, `${ORIGIN}${await authorizeQuery(h)}`);
      assert.equal(fresh.status, 429, "no new consent page while locked");
      const right = await answerConsent(fetcher, ORIGIN, secondPage, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(right.status, 429, "the right password is not even checked while locked");
      assert.equal(right.headers.get("location"), null);
      const lockout = await h.access.readOwnerLockout("test");
      assert.equal(lockout.lockouts, 1);
      const events = await h.ops.store.readJournalEvents(0, 200);
      const changes = events.filter((e) => e.type === "auth_changed").map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
      assert.deepEqual(
        changes.filter((c) => c.startsWith("owner_")),
        ["owner_password_failed", "owner_password_failed", "owner_locked"],
      );
    } finally {
      await h.close();
    }
    const restarted = await openAppHarness({ settings, home });
    try {
      const page = await restarted.request(await authorizeQuery(restarted));
      assert.equal(page.status, 429, "the lock survived a restart");
    } finally {
      await restarted.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("the token endpoint", () => {
  async function approvedCode(h: AppHarness): Promise<{ clientId: string; code: string; verifier: string }> {
    const fetcher = inProcess(h.request);
    const registered = await json(await register(h, [CALLBACK]));
    const { verifier, challenge } = await pkcePair();
    const clientId = String(registered["client_id"]);
    const page = await openConsent(
      fetcher,
      `${ORIGIN}/authorize?response_type=code&client_id=${clientId}&code_challenge=${challenge}&code_challenge_method=S256&redirect_uri=${encodeURIComponent(CALLBACK)}`,
    );
    const answer = await answerConsent(fetcher, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD });
    return { clientId, code: new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "", verifier };
  }

  test("PKCE must match, the code belongs to its client, and a reused code revokes what it gave", () =>
    withHarness(async (h) => {
      const { clientId, code, verifier } = await approvedCode(h);
      const other = String((await json(await register(h, [CALLBACK])))["client_id"]);
      assert.equal(
        (await json(await h.request("/token", form({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: "x".repeat(43) }))))["error"],
        "invalid_grant",
      );
      assert.equal(
        (await json(await h.request("/token", form({ grant_type: "authorization_code", client_id: other, code, code_verifier: verifier }))))["error"],
        "invalid_grant",
      );
      assert.equal(
        (
          await json(
            await h.request(
              "/token",
              form({
                grant_type: "authorization_code",
                client_id: clientId,
                code,
                code_verifier: verifier,
                redirect_uri: "https://chatgpt.com/connector_platform_oauth_redirect",
              }),
            ),
          )
        )["error"],
        "invalid_grant",
      );
      const granted = await h.request(
        "/token",
        form({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: CALLBACK }),
      );
      assert.equal(granted.status, 200);
      assert.equal(granted.headers.get("cache-control"), "no-store");
      const tokens = await json(granted);
      assert.equal(tokens["scope"], "tasks");
      const reused = await h.request("/token", form({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier }));
      assert.equal((await json(reused))["error"], "invalid_grant");
      assert.equal(
        (await h.request("/mcp", { method: "POST", headers: mcpHeaders(String(tokens["access_token"])), body: "{}" })).status,
        401,
        "the first exchange's tokens are revoked",
      );
    }));

  test("a code expires after five minutes", async () => {
    const clock = manualClock(Date.now());
    await withHarness(
      async (h) => {
        const { clientId, code, verifier } = await approvedCode(h);
        clock.advance(5 * 60 * 1000 + 1);
        assert.equal(
          (await json(await h.request("/token", form({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier }))))["error"],
          "invalid_grant",
        );
      },
      { clock: clock.now },
    );
  });

  test("other grant types and content types are refused", () =>
    withHarness(async (h) => {
      const { clientId } = await approvedCode(h);
      assert.equal((await json(await h.request("/token", form({ grant_type: "client_credentials", client_id: clientId }))))["error"], "unsupported_grant_type");
      const asJson = await h.request("/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "authorization_code" }),
      });
      assert.equal((await json(asJson))["error"], "invalid_request");
      assert.equal((await h.request("/token", form({ grant_type: "authorization_code", client_id: "nobody" }))).status, 401);
    }));

  test("a refresh retried within the grace window gets the same pair and the grant keeps working; racing retries get that pair too; after the window a retry revokes the grant", async () => {
    const clock = manualClock();
    await withHarness(
      async (h) => {
        const grant = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
        const refresh = async (token: string) => {
          const response = await h.request("/token", form({ grant_type: "refresh_token", client_id: grant.clientId, refresh_token: token }));
          return { status: response.status, body: await json(response) };
        };
        const works = async (access: string) =>
          (await h.request("/mcp", { method: "POST", headers: mcpHeaders(access), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }))
            .status;
        const first = await refresh(grant.refreshToken);
        assert.equal(first.status, 200);
        clock.advance(h.settings.tokens.refreshReuseGraceMs - 1_000);
        const retried = await refresh(grant.refreshToken);
        assert.equal(retried.status, 200, JSON.stringify(retried.body));
        assert.deepEqual(
          [retried.body["access_token"], retried.body["refresh_token"]],
          [first.body["access_token"], first.body["refresh_token"]],
          "the same pair, not a new one",
        );
        assert.ok(Number(retried.body["expires_in"]) <= Number(first.body["expires_in"]));
        assert.equal(await works(String(retried.body["access_token"])), 200, "the grant keeps working");

        const raced = await Promise.all(Array.from({ length: 4 }, () => refresh(String(first.body["refresh_token"]))));
        assert.deepEqual(
          raced.map((r) => r.status),
          [200, 200, 200, 200],
        );
        assert.equal(
          new Set(raced.map((r) => `${String(r.body["access_token"])} ${String(r.body["refresh_token"])}`)).size,
          1,
          "racing refreshes with one token get one pair",
        );
        const latest = raced[0]?.body ?? {};
        assert.equal(await works(String(latest["access_token"])), 200);

        clock.advance(h.settings.tokens.refreshReuseGraceMs + 1_000);
        const late = await refresh(String(first.body["refresh_token"]));
        assert.equal(late.body["error"], "invalid_grant", "a reuse after the window revokes");
        assert.equal(await works(String(latest["access_token"])), 401, "the whole grant is revoked");
        assert.equal((await refresh(String(latest["refresh_token"]))).body["error"], "invalid_grant");
      },
      { clock: clock.now },
    );
  });

  test("revocation ends the whole grant and answers 200 whatever the token", () =>
    withHarness(async (h) => {
      const grant = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
      assert.equal((await h.request("/revoke", form({ client_id: grant.clientId, token: "errand_rt_unknown" }))).status, 200);
      assert.equal((await h.request("/mcp", { method: "POST", headers: mcpHeaders(grant.accessToken), body: "{}" })).status !== 401, true);
      assert.equal((await h.request("/revoke", form({ client_id: grant.clientId, token: grant.refreshToken, token_type_hint: "refresh_token" }))).status, 200);
      assert.equal((await h.request("/mcp", { method: "POST", headers: mcpHeaders(grant.accessToken), body: "{}" })).status, 401);
      assert.equal(
        (await json(await h.request("/token", form({ grant_type: "refresh_token", client_id: grant.clientId, refresh_token: grant.refreshToken }))))["error"],
        "invalid_grant",
      );
    }));
});

describe("REST /v1 with API tokens", () => {
  test("without a token, with a bogus one, or with an OAuth access token: 401 unauthorized", () =>
    withHarness(async (h) => {
      const grant = await obtainGrant(inProcess(h.request), ORIGIN, OWNER_PASSWORD, CALLBACK);
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer errand_api_nope" },
        { authorization: `Bearer ${grant.accessToken}` },
        { authorization: "Basic abc" },
      ];
      for (const headers of attempts) {
        const response = await h.request("/v1/status", { headers });
        assert.equal(response.status, 401);
        assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer realm="errand"/);
        assert.equal(((await json(response))["error"] as { code: string }).code, "unauthorized");
      }
    }));

  test("submit, inspect, collect, runner, cancel, status and the OpenAPI document", () =>
    withHarness(async (h) => {
      const token = await h.apiToken("ci");
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const id = randomUUID();
      const created = await h.request("/v1/operations", { method: "POST", headers: auth, body: JSON.stringify(readTask(id)) });
      assert.equal(created.status, 201);
      assert.equal((await json(created))["created"], true);
      const again = await h.request("/v1/operations", { method: "POST", headers: auth, body: JSON.stringify(readTask(id)) });
      assert.equal(again.status, 200);
      assert.equal((await json(again))["created"], false);
      const mismatch = await h.request("/v1/operations", { method: "POST", headers: auth, body: JSON.stringify(readTask(id, "other label")) });
      assert.equal(mismatch.status, 409);
      assert.equal(((await json(mismatch))["error"] as { code: string }).code, "identity_mismatch");
      assert.equal(((await json(await h.request(`/v1/operations/${id}`, { headers: auth })))["handle"] as { phase: string }).phase, "queued");
      const runner = await json(await h.request("/v1/runner", { method: "POST", headers: auth, body: JSON.stringify({ waitSeconds: 20 }) }));
      assert.equal(runner["finished"], true);
      const collected = await json(await h.request(`/v1/operations/${id}/collect`, { method: "POST", headers: auth, body: "" }));
      assert.equal(collected["status"], "completed");
      const writeId = randomUUID();
      await h.request("/v1/operations", {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ ...readTask(writeId), risk: "reversible_write", approved: true }),
      });
      const cancelled = await json(
        await h.request(`/v1/operations/${writeId}/cancel`, { method: "POST", headers: auth, body: JSON.stringify({ controlActionId: randomUUID() }) }),
      );
      assert.equal(cancelled["outcome"], "cancelled");
      const status = await json(await h.request("/v1/status", { headers: auth }));
      assert.equal((status["operations"] as Record<string, number>)["cancelled"], 1);
      const openapi = await json(await h.request("/v1/openapi.json", { headers: auth }));
      assert.equal(openapi["openapi"], "3.1.0");
      const paths = openapi["paths"] as Record<string, Record<string, unknown>>;
      for (const endpoint of REST_ENDPOINTS)
        assert.ok(paths[endpoint.path]?.[endpoint.method.toLowerCase()] !== undefined, `${endpoint.method} ${endpoint.path} is documented`);
      const events = await h.ops.store.readJournalEvents(0, 200);
      assert.ok(events.some((e) => e.type === "request_recorded" && (e.body ?? "").includes('"actor":"api:') && (e.body ?? "").includes(writeId)));
    }));

  test("refusals carry a code, a message with the next step and JSON Pointers; no stack traces", () =>
    withHarness(async (h) => {
      const auth = { authorization: `Bearer ${await h.apiToken()}`, "content-type": "application/json" };
      const invalid = await h.request("/v1/operations", { method: "POST", headers: auth, body: JSON.stringify({ ...readTask(), steps: [], extra: 1 }) });
      assert.equal(invalid.status, 400);
      const error = (await json(invalid))["error"] as { code: string; message: string; problems: { path: string }[] };
      assert.match(error.message, /Fix it and submit again/);
      assert.deepEqual(error.problems.map((p) => p.path).sort(), ["/extra", "/steps"]);
      const unapproved = await h.request("/v1/operations", { method: "POST", headers: auth, body: JSON.stringify({ ...readTask(), risk: "consequential" }) });
      assert.equal(unapproved.status, 422);
      assert.equal((await h.request("/v1/operations", { method: "POST", headers: auth, body: "{not json" })).status, 400);
      assert.equal((await h.request(`/v1/operations/${randomUUID()}`, { headers: auth })).status, 404);
      assert.equal((await h.request(`/v1/runner`, { method: "POST", headers: auth, body: JSON.stringify({ waitSeconds: 999 }) })).status, 400);
      assert.equal((await h.request(`/v1/runner`, { method: "POST", headers: auth, body: JSON.stringify({ max: 1 }) })).status, 400);
      const big = await h.request("/v1/operations", { method: "POST", headers: auth, body: "x".repeat(600 * 1024) });
      assert.equal(big.status, 413);
      h.deps.service.status = () => Promise.reject(new Error("boom at /work/secret/path.ts:12"));
      const broken = await h.request("/v1/status", { headers: auth });
      assert.equal(broken.status, 500);
      const text = await broken.text();
      assert.doesNotMatch(text, /boom|\/work|\.ts/);
      assert.ok(
        h.logs.some((l) => l.level === "error" && l.message.includes("boom")),
        "the operator's log has it",
      );
    }));

  test("a revoked API token stops working at once", () =>
    withHarness(async (h) => {
      const token = await h.apiToken("temp");
      assert.equal((await h.request("/v1/status", { headers: { authorization: `Bearer ${token}` } })).status, 200);
      await h.access.revokeApiToken("temp");
      assert.equal((await h.request("/v1/status", { headers: { authorization: `Bearer ${token}` } })).status, 401);
    }));
});
