// Owner approval over HTTP from the attacker's side: an assistant (MCP with an OAuth token) or a
// script (REST with an API token) gets awaiting_approval with the console URL and a plain summary,
// can never approve by any route, and the counting site sees nothing until the owner approves in
// the console; the console itself driven by headless Chromium. Loopback only.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext } from "playwright-core";
import { findChromium } from "../../../src/providers/local/findChromium.js";
import { startCountingServer } from "../../operations/support/countingServer.js";
import type { CountingServer } from "../../operations/support/countingServer.js";
import { writeTask } from "../../operations/support/tasks.js";
import { defineLoggedInSite } from "../../operations/support/loggedInSite.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type ToolResult = { structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[]; isError?: boolean };

function consequential(id: string = randomUUID()): Record<string, unknown> {
  return {
    ...writeTask(id, undefined, { target: { url: "https://shop.example.com/cart" } }),
    risk: "consequential",
    steps: [
      { action: "click", selector: "#pay" },
      { action: "expect_text", text: "Paid" },
    ],
  };
}

const executablePath = findChromium(process.env);

describe("owner approval over HTTP", { timeout: 240_000 }, () => {
  let site: CountingServer;
  let server: AppHarness & { origin: string };
  let client: Client;
  let accessToken = "";
  let apiToken = "";

  before(async () => {
    site = await startCountingServer();
    server = await startAppServer({ fixtureOrigin: site.origin, sites: true });
    accessToken = (await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK)).accessToken;
    apiToken = await server.apiToken("script");
    client = new Client({ name: "approval-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    await site?.close();
  });

  test("MCP errand_run/errand_collect and REST answer awaiting_approval with the console URL and a plain-language summary; nothing reaches the site", async () => {
    const id = randomUUID();
    const run = (await client.callTool({ name: "errand_run", arguments: { task: consequential(id), waitSeconds: 5 } })) as ToolResult;
    assert.equal(run.isError, undefined);
    const out = run.structuredContent ?? {};
    assert.equal(out["status"], "awaiting_approval");
    const approval = out["approval"] as { url: string; expiresAt: string; summary: string };
    assert.equal(approval.url, `${server.origin}/owner/approvals/${id}`);
    assert.match(approval.summary, /consequential/);
    assert.match(approval.summary, /click "#pay" on shop\.example\.com/);
    assert.match(approval.summary, /Request digest: hmac-sha256:/);
    assert.ok(Date.parse(approval.expiresAt) > Date.now());
    assert.match(run.content[0]?.text ?? "", /\nNext: .*cannot approve/);
    assert.match(run.content[0]?.text ?? "", /owner must approve it at http/);

    const submitted = (await client.callTool({ name: "errand_run", arguments: { task: consequential(id), waitSeconds: 0 } })) as ToolResult;
    assert.equal(submitted.structuredContent?.["status"], "awaiting_approval");
    const collected = (await client.callTool({ name: "errand_collect", arguments: { operationId: id, waitSeconds: 1 } })) as ToolResult;
    assert.equal(collected.structuredContent?.["status"], "awaiting_approval");
    assert.ok(collected.structuredContent?.["approval"] !== undefined);

    const restId = randomUUID();
    const rest = await fetch(`${server.origin}/v1/operations`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify(consequential(restId)),
    });
    const restBody = (await rest.json()) as { status: string; approval: { url: string; summary: string } };
    assert.equal(restBody.status, "awaiting_approval");
    assert.equal(restBody.approval.url, `${server.origin}/owner/approvals/${restId}`);
    await fetch(`${server.origin}/v1/runner`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify({ waitSeconds: 5 }),
    });
    await client.callTool({ name: "errand_run_queue", arguments: { waitSeconds: 5 } });
    assert.equal(site.count("POST", `/write/${id}`), 0, "nothing reached the site");
    assert.equal(site.count("POST", `/write/${restId}`), 0);
  });

  test("a Send money reversible_write with approved:true over MCP and REST waits for the owner: 0 POSTs reach the site until the owner approves", async () => {
    const id = randomUUID();
    const sendMoney = writeTask(id, "Send money", {
      steps: [
        { action: "click", selector: "button:text('Send money')" },
        { action: "expect_text", text: "Sent" },
      ],
    });
    const run = (await client.callTool({ name: "errand_run", arguments: { task: sendMoney, waitSeconds: 2 } })) as ToolResult;
    assert.equal(run.structuredContent?.["status"], "awaiting_approval");
    await client.callTool({ name: "errand_run_queue", arguments: { waitSeconds: 2 } });
    const restId = randomUUID();
    const rest = await fetch(`${server.origin}/v1/operations`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify({ ...sendMoney, operationId: restId }),
    });
    assert.equal(((await rest.json()) as { status: string }).status, "awaiting_approval");
    assert.equal(site.count("POST", `/write/${id}`), 0, "no POST before the owner approves");
    assert.equal(site.count("POST", `/write/${restId}`), 0);
    const digest = String((run.structuredContent?.["handle"] as { requestDigest: string }).requestDigest);
    assert.ok((await server.ops.service.decideApproval(id, { approve: true, requestDigest: digest, decidedBy: "owner (test)", via: "cli" })).ok);
    const done = (await client.callTool({ name: "errand_collect", arguments: { operationId: id, waitSeconds: 10 } })) as ToolResult;
    await client.callTool({ name: "errand_run_queue", arguments: { waitSeconds: 5 } });
    assert.equal(site.count("POST", `/write/${id}`), 1, `the owner's approval runs it once (${String(done.structuredContent?.["status"])})`);
  });

  test("no OAuth or API token can approve, by any route", async () => {
    const id = randomUUID();
    assert.equal(
      ((await client.callTool({ name: "errand_run", arguments: { task: consequential(id), waitSeconds: 0 } })) as ToolResult).structuredContent?.["status"],
      "awaiting_approval",
    );
    const digest = (await server.ops.service.approvalRequest(id)) as { approval: { requestDigest: string } };
    const form = new URLSearchParams({ requestDigest: digest.approval.requestDigest, csrf: "x" }).toString();
    for (const token of [accessToken, apiToken]) {
      for (const path of [`/owner/approvals/${id}/approve`, `/v1/operations/${id}/approve`, `/v1/operations/${id}/approval`, `/mcp/approve`]) {
        const answer = await fetch(`${server.origin}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded", origin: server.origin },
          body: form,
          redirect: "manual",
        });
        assert.ok([401, 403, 404, 405].includes(answer.status), `${path}: ${answer.status}`);
      }
    }
    const { tools } = await client.listTools();
    assert.ok(!tools.some((t) => /approv|deny|owner/.test(t.name)), "no MCP tool approves");
    const forged = (await client.callTool({ name: "errand_approve", arguments: { operationId: id } })) as ToolResult;
    assert.equal(forged.isError, true);
    const smuggled = (await client.callTool({
      name: "errand_run",
      arguments: { task: { ...consequential(), ownerApproved: true }, waitSeconds: 0 },
    })) as ToolResult;
    assert.equal(smuggled.isError, true);
    assert.match(smuggled.content[0]?.text ?? "", /unknown_field/);
    const still = await server.ops.service.inspect(id);
    assert.equal(still.ok && still.status, "awaiting_approval");
    assert.equal(site.count("POST", `/write/${id}`), 0);
  });

  describe("the owner console in headless Chromium", { skip: executablePath === null ? "no Chromium installed" : false }, () => {
    let browser: Browser;
    before(async () => {
      browser = await chromium.launch({ executablePath: executablePath ?? "", headless: true, args: ["--no-sandbox"] });
    });
    after(async () => {
      await browser?.close();
    });

    async function loggedIn(): Promise<BrowserContext> {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.origin}/owner`);
      await page.fill("input[type=password]", OWNER_PASSWORD);
      await Promise.all([page.waitForURL(`${server.origin}/owner`), page.click("button:text('Log in')")]);
      return context;
    }

    test("wrong password refused; right password opens the console; Approve runs the task exactly once; Deny ends another BLOCKED", async () => {
      const approveId = randomUUID();
      const denyId = randomUUID();
      for (const id of [approveId, denyId])
        assert.equal(
          ((await client.callTool({ name: "errand_run", arguments: { task: consequential(id), waitSeconds: 0 } })) as ToolResult).structuredContent?.["status"],
          "awaiting_approval",
        );

      const context = await browser.newContext();
      const page = await context.newPage();
      const first = await page.goto(`${server.origin}/owner/approvals/${approveId}`);
      assert.equal(first?.headers()["cache-control"], "no-store");
      assert.match(first?.headers()["content-security-policy"] ?? "", /frame-ancestors 'none'/);
      assert.equal(await page.locator("input[type=password]").count(), 1, "a login form, not the approval");
      await page.fill("input[type=password]", "not the owner password");
      await page.click("button:text('Log in')");
      await page.waitForLoadState();
      assert.match((await page.locator("[role=alert]").textContent()) ?? "", /Wrong password/);
      await page.fill("input[type=password]", OWNER_PASSWORD);
      await Promise.all([page.waitForURL(`${server.origin}/owner/approvals/${approveId}`), page.click("button:text('Log in')")]);
      const cookie = (await context.cookies()).find((c) => c.name === "errand_owner");
      assert.ok(cookie !== undefined);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, "Strict");
      assert.equal(cookie.path, "/owner");

      assert.equal(await page.locator("h1").textContent(), "Approve this task?");
      assert.match((await page.locator("#summary").textContent()) ?? "", /click "#pay" on shop\.example\.com/);
      assert.match((await page.locator("#digest").textContent()) ?? "", /^hmac-sha256:[0-9a-f]{64}$/);
      assert.deepEqual(await page.locator("form button").allTextContents(), ["Approve", "Deny"]);
      assert.equal(site.count("POST", `/write/${approveId}`), 0, "nothing before approval");
      await Promise.all([page.waitForURL(`${server.origin}/owner/operations/${approveId}`), page.click("button:text-is('Approve')")]);
      await site.waitFor("POST", `/write/${approveId}`);
      await server.queue.kick();
      await server.queue.kick();
      assert.equal(site.count("POST", `/write/${approveId}`), 1, "approved once, run once");
      const collected = await server.ops.service.collect(approveId, { wait: true, timeoutMs: 10_000 });
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "PASS");
      await page.reload();
      assert.match((await page.locator("#status").textContent()) ?? "", /completed \(PASS\)/);

      await page.goto(`${server.origin}/owner`);
      assert.match((await page.locator("body").textContent()) ?? "", new RegExp(denyId));
      await page.goto(`${server.origin}/owner/approvals/${denyId}`);
      await Promise.all([page.waitForURL(`${server.origin}/owner/operations/${denyId}`), page.click("button:text-is('Deny')")]);
      assert.match((await page.locator("#status").textContent()) ?? "", /blocked \(BLOCKED\)/);
      await server.queue.kick();
      assert.equal(site.count("POST", `/write/${denyId}`), 0, "a denied task never runs");
      const denied = await server.ops.service.collect(denyId);
      assert.equal(denied.ok && denied.receipt?.error?.code, "approval_denied");
      const events = await server.ops.store.readJournalEvents(0, 10_000);
      const approvedEvent = events.find((e) => e.type === "operation_approved" && e.operationId === approveId);
      assert.match(approvedEvent?.body ?? "", /"via":"console"/);
      assert.match(approvedEvent?.body ?? "", /owner \(console: 127\.0\.0\.1\)/);
      await context.close();
    });

    test("standing grant from the console at phone size: 'Approve and allow tasks like this on library for 24 hours' runs the task and the next one with 0 owner actions; Revoke on the main page makes the next wait; no token can give one by any route", async () => {
      const registry = server.sites;
      assert.ok(registry !== undefined);
      await defineLoggedInSite(registry, "library", "https://library.example.com");
      const renewal = (id: string) =>
        writeTask(id, "Renew my books", {
          site: "library",
          target: { url: "https://library.example.com/loans" },
          steps: [
            { action: "click", selector: "#renew" },
            { action: "expect_text", text: "Renewed" },
          ],
        });
      const run = async (id: string) =>
        ((await client.callTool({ name: "errand_run", arguments: { task: renewal(id), waitSeconds: 0 } })) as ToolResult).structuredContent?.["status"];
      const first = randomUUID();
      assert.equal(await run(first), "awaiting_approval");

      // No OAuth or API token gives a grant, by any plausible route or tool.
      for (const token of [accessToken, apiToken]) {
        for (const path of [
          `/owner/approvals/${first}/approve-and-allow`,
          "/owner/sites/library/allow",
          "/v1/sites/library/allow",
          "/v1/sites/library/grants",
          "/v1/sites",
          "/v1/grants",
          "/v1/sites/library",
        ]) {
          const answer = await fetch(`${server.origin}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: server.origin },
            body: JSON.stringify({ risk: "consequential", secrets: [], csrf: "x" }),
            redirect: "manual",
          });
          assert.ok([401, 403, 404, 405].includes(answer.status), `${path}: ${answer.status}`);
        }
      }
      const { tools } = await client.listTools();
      assert.ok(!tools.some((t) => /grant|allow|site_/.test(t.name)), "no MCP tool gives a grant");
      for (const name of ["errand_site_allow", "errand_grant", "errand_allow"]) {
        assert.equal(((await client.callTool({ name, arguments: { site: "library", risk: "consequential" } })) as ToolResult).isError, true, name);
      }
      assert.deepEqual(await registry.liveGrants("library"), []);
      assert.equal(site.count("POST", `/write/${first}`), 0);

      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      await page.goto(`${server.origin}/owner/approvals/${first}`);
      await page.fill("input[type=password]", OWNER_PASSWORD);
      await Promise.all([page.waitForURL(`${server.origin}/owner/approvals/${first}`), page.click("button:text('Log in')")]);
      const allow = "Approve and allow tasks like this on library for 24 hours";
      assert.deepEqual(await page.locator("form button").allTextContents(), ["Approve", "Deny", allow]);
      // A forged form (the right session, a wrong CSRF token) gives nothing.
      const session = (await context.cookies()).find((c) => c.name === "errand_owner")?.value ?? "";
      const digest = (await page.locator("#digest").textContent()) ?? "";
      const forged = await fetch(`${server.origin}/owner/approvals/${first}/approve-and-allow`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `errand_owner=${session}`, origin: server.origin },
        body: new URLSearchParams({ requestDigest: digest, csrf: "guessed" }).toString(),
        redirect: "manual",
      });
      assert.equal(forged.status, 403);
      assert.deepEqual(await registry.liveGrants("library"), []);
      const box = await page.locator(`button:text-is('${allow}')`).boundingBox();
      assert.ok(box !== null && box.x >= 0 && box.x + box.width <= 390, "the button fits a phone's width");
      await Promise.all([page.waitForURL(`${server.origin}/owner/operations/${first}`), page.tap(`button:text-is('${allow}')`)]);
      await site.waitFor("POST", `/write/${first}`);
      const grants = await registry.liveGrants("library");
      assert.deepEqual(
        grants.map((g) => [g.risk, g.secrets]),
        [["reversible_write", []]],
      );
      assert.ok(grants[0] !== undefined && grants[0].expiresMs - Date.now() <= 24 * 3_600_000 && grants[0].expiresMs - Date.now() > 23 * 3_600_000);

      // The next renewal runs with no owner action, and says which grant let it.
      const second = randomUUID();
      assert.notEqual(await run(second), "awaiting_approval");
      await server.queue.kick();
      await site.waitFor("POST", `/write/${second}`);
      assert.equal(site.count("POST", `/write/${second}`), 1);
      const inspected = await server.ops.service.inspect(second);
      assert.ok(inspected.ok && "operation" in inspected);
      assert.equal(inspected.operation.ranUnderGrant, grants[0]?.grantId);
      const status = (await client.callTool({ name: "errand_status", arguments: {} })) as ToolResult;
      assert.deepEqual(
        (status.structuredContent?.["sites"] as { grants: { id: string }[] }[])[0]?.grants.map((g) => g.id),
        [grants[0]?.grantId],
        "the assistant sees the grant, read-only",
      );

      // Revoke from the console's main page: the next one waits again.
      await page.goto(`${server.origin}/owner`);
      assert.match((await page.locator("li.grant").textContent()) ?? "", /up to reversible_write/);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith("/owner/sites/library/revoke")), page.tap("button:text-is('Revoke library')")]);
      await page.waitForURL(`${server.origin}/owner`);
      assert.match((await page.locator("body").textContent()) ?? "", /No site has a standing grant/);
      assert.deepEqual(await registry.liveGrants("library"), []);
      const third = randomUUID();
      assert.equal(await run(third), "awaiting_approval");
      await server.queue.kick();
      assert.equal(site.count("POST", `/write/${third}`), 0);
      await context.close();
    });

    test("a console form without its CSRF token, or posted from another origin, is refused and approves nothing", async () => {
      const id = randomUUID();
      assert.ok((await server.ops.service.submit(consequential(id))).ok);
      const context = await loggedIn();
      const session = (await context.cookies()).find((c) => c.name === "errand_owner")?.value ?? "";
      const request = await server.ops.service.approvalRequest(id);
      assert.ok(request.ok);
      const post = (headers: Record<string, string>, fields: Record<string, string>) =>
        fetch(`${server.origin}/owner/approvals/${id}/approve`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: `errand_owner=${session}`, ...headers },
          body: new URLSearchParams(fields).toString(),
          redirect: "manual",
        });
      assert.equal((await post({ origin: server.origin }, { requestDigest: request.approval.requestDigest })).status, 403, "no CSRF token");
      assert.equal(
        (await post({ origin: server.origin }, { requestDigest: request.approval.requestDigest, csrf: "guessed" })).status,
        403,
        "a wrong CSRF token",
      );
      assert.equal(
        (await post({ origin: "https://evil.example" }, { requestDigest: request.approval.requestDigest, csrf: "guessed" })).status,
        403,
        "another origin",
      );
      assert.equal(
        (await post({ origin: server.origin, "sec-fetch-site": "cross-site" }, { requestDigest: request.approval.requestDigest })).status,
        403,
        "a cross-site fetch",
      );
      assert.equal(
        (
          await fetch(`${server.origin}/owner/approvals/${id}/approve`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin },
            body: "csrf=x",
            redirect: "manual",
          })
        ).status,
        403,
        "no session",
      );
      const still = await server.ops.service.inspect(id);
      assert.equal(still.ok && still.status, "awaiting_approval");
      await context.close();
    });
  });
});
