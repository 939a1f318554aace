// Over MCP (the real SDK client over a real loopback socket) and REST: a task known to fail (an
// undeclared secret, a secret aimed at a look-alike site, an off-list goto) is refused at submit
// with a message the assistant can act on; nothing waits for the owner and nothing is queued.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

function loginTask(target: string, secret = "portal"): Record<string, unknown> {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    target: { url: target },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill_secret", selector: "#password", secret },
      { action: "click", selector: "#login" },
      { action: "expect_text", text: "Welcome" },
    ],
  };
}

describe("refused at submit over MCP and REST", { timeout: 60_000 }, () => {
  let server: AppHarness & { origin: string };
  let client: Client;
  let apiToken = "";

  before(async () => {
    server = await startAppServer();
    await server.ops.secrets().set("portal", ["https://portal.example.com"], { kind: "stored", value: "a-long-secret-value-for-tests" });
    const grant = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    apiToken = await server.apiToken();
    client = new Client({ name: "refusal-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${grant.accessToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  test("an undeclared secret, a look-alike site and an off-list goto: a refusal naming what to fix on both interfaces, nothing awaiting the owner", async () => {
    const offList = {
      ...loginTask("https://portal.example.com/login"),
      steps: [
        { action: "goto", url: "https://elsewhere.example.net/" },
        { action: "expect_text", text: "x" },
      ],
      risk: "read_only",
      approved: false,
      secretApproval: false,
    };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        loginTask("https://portal.example.com/login", "bank"),
        "secret_unknown",
        /secret bank, which the owner has not declared.*errand secret set bank --site https:\/\/portal\.example\.com/,
      ],
      [
        loginTask("https://portal.example.com.evil.test/login"),
        "secret_site_mismatch",
        /bound the secret portal to https:\/\/portal\.example\.com.*its target is https:\/\/portal\.example\.com\.evil\.test/,
      ],
      [offList, "navigation_blocked", /goes to elsewhere\.example\.net, which is not one of this task's hosts/],
    ];
    for (const [task, code, message] of cases) {
      const viaMcp = (await client.callTool({ name: "errand_run", arguments: { task, waitSeconds: 0 } })) as ToolResult;
      assert.equal(viaMcp.isError, true, code);
      assert.match(viaMcp.content[0]?.text ?? "", new RegExp(`^${code}: The task cannot succeed as it is, so it was refused before the owner was asked`));
      assert.match(viaMcp.content[0]?.text ?? "", message);
      const viaRest = await fetch(`${server.origin}/v1/operations`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
        body: JSON.stringify(task),
      });
      assert.equal(viaRest.status, 422, code);
      const body = (await viaRest.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, code);
      assert.match(body.error.message, message);
    }
    const status = await server.ops.service.status();
    assert.ok(
      Object.values(status.store.phases).every((count) => count === 0),
      `nothing queued, nothing awaits the owner: ${JSON.stringify(status.store.phases)}`,
    );
  });
});
