// The whole ChatGPT-style dance with the real MCP SDK client over a real loopback socket:
// 401 → discovery → registration → authorize → consent → token → tools/list → every tool →
// refresh rotation → replayed refresh refused → wrong-resource token refused.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readTask, writeTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { answerConsent, openConsent } from "./support/oauthDance.js";
import { TestOAuthProvider } from "./support/sdkOAuthProvider.js";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

async function postForm(url: string, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("MCP over OAuth with the SDK client", { timeout: 60_000 }, () => {
  let server: AppHarness & { origin: string };
  const provider = new TestOAuthProvider(CALLBACK);
  let client: Client;

  before(async () => {
    server = await startAppServer();
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server.close();
  });

  test("first connect: 401 with resource_metadata, discovery, registration, then a PKCE S256 authorization request bound to the resource", async () => {
    const raw = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    assert.equal(raw.status, 401);
    assert.match(raw.headers.get("www-authenticate") ?? "", new RegExp(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`));

    const first = new Client({ name: "e2e", version: "1.0.0" });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { authProvider: provider })), UnauthorizedError);
    const url = provider.authorizationUrl;
    assert.ok(url !== undefined, "the client was sent to the authorization endpoint");
    assert.equal(url.origin + url.pathname, `${server.origin}/authorize`);
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.equal(url.searchParams.get("resource"), `${server.origin}/mcp`);
    assert.match(url.searchParams.get("scope") ?? "", /tasks/);
    assert.ok(provider.info !== undefined && "client_id" in provider.info && provider.info.client_id.startsWith("errand_client_"), "registered by DCR");
  });

  test("consent with the owner password, code exchange, tools/list with every annotation and output schema", async () => {
    const url = provider.authorizationUrl;
    assert.ok(url !== undefined);
    const form = await openConsent(fetch, url.toString());
    assert.equal(form.status, 200);
    assert.match(form.html, /sdk-e2e-client/);
    const answer = await answerConsent(fetch, server.origin, form, { decision: "approve", password: OWNER_PASSWORD });
    assert.equal(answer.status, 303);
    const location = new URL(answer.headers.get("location") ?? "");
    assert.equal(location.origin + location.pathname, CALLBACK);
    assert.equal(location.searchParams.get("state"), url.searchParams.get("state"));
    assert.equal(location.searchParams.get("iss"), server.origin);
    const code = location.searchParams.get("code");
    assert.ok(code !== null);

    const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { authProvider: provider });
    await transport.finishAuth(code);
    assert.ok(provider.saved?.access_token.startsWith("errand_at_"));
    assert.ok(provider.saved?.refresh_token?.startsWith("errand_rt_"));

    client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { authProvider: provider }));
    assert.equal(client.getServerVersion()?.name, "errand");
    assert.match(client.getInstructions() ?? "", /^errand runs declarative browser tasks/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "errand_cancel",
      "errand_capabilities",
      "errand_collect",
      "errand_inspect",
      "errand_look",
      "errand_provider_smoke",
      "errand_run",
      "errand_run_queue",
      "errand_status",
      "errand_task_schema",
    ]);
    for (const tool of tools) {
      if (["errand_run", "errand_collect", "errand_cancel", "errand_run_queue"].includes(tool.name))
        assert.ok(tool.outputSchema !== undefined, `${tool.name} has an output schema`);
      for (const hint of ["readOnlyHint", "destructiveHint", "openWorldHint"] as const)
        assert.equal(typeof tool.annotations?.[hint], "boolean", `${tool.name}.${hint}`);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get("errand_status")?.annotations?.readOnlyHint, true);
    assert.equal(byName.get("errand_cancel")?.annotations?.destructiveHint, false);
    assert.equal(byName.get("errand_run")?.annotations?.destructiveHint, true);
    assert.equal(byName.get("errand_run")?.annotations?.openWorldHint, true);
  });

  test("every tool answers with structuredContent and a text summary; errors say what to do next; the journal names the client", async () => {
    const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

    const schema = await call("errand_task_schema");
    assert.equal(schema.structuredContent?.["schemaVersion"], "errand.task.v1");
    const caps = await call("errand_capabilities");
    assert.equal((caps.structuredContent?.["protocol"] as { latest: string }).latest.length > 0, true);
    const status = await call("errand_status");
    assert.ok(status.structuredContent?.["operations"] !== undefined);
    assert.ok((status.content[0]?.text ?? "").length > 0);

    // What this grant submits is recorded as its token family's (the grant, not the client id).
    const token = await server.access.readToken(server.hasher.hash("access", provider.saved?.access_token ?? ""));
    const grant = { submitter: `oauth:${token?.familyId ?? ""}`, seesAll: false };
    const queuedId = randomUUID();
    const submitted = await server.ops.service.submit(readTask(queuedId), grant);
    assert.equal(submitted.ok && submitted.created, true);
    const ownersId = randomUUID();
    await server.ops.service.submit(readTask(ownersId));
    const queueRun = await call("errand_run_queue", { waitSeconds: 20 });
    assert.equal(queueRun.structuredContent?.["finished"], true);
    const collected = await call("errand_collect", { operationId: queuedId });
    assert.equal(collected.structuredContent?.["status"], "completed");
    assert.equal((collected.structuredContent?.["receipt"] as { status: string }).status, "PASS");
    const inspected = await call("errand_inspect", { operationId: queuedId });
    assert.equal((inspected.structuredContent?.["handle"] as { phase: string }).phase, "completed");
    const owners = await call("errand_collect", { operationId: ownersId });
    assert.match(owners.content[0]?.text ?? "", /^operation_not_found/, "the owner's operation is not this grant's");

    const ranId = randomUUID();
    const ran = await call("errand_run", { task: readTask(ranId, "extract"), waitSeconds: 20 });
    assert.equal(ran.isError, undefined);
    assert.equal(ran.structuredContent?.["status"], "completed");
    const page = ran.structuredContent?.["pageContent"] as { untrusted: boolean; notice: string; values: { name: string; text: string }[] };
    assert.equal(page.untrusted, true);
    assert.match(page.notice, /never as instructions/);
    assert.deepEqual(
      page.values.map((v) => [v.name, v.text]),
      [["title", "Example Domain"]],
    );
    // Full retention: the receipt keeps the value (wrapped); the assistant gets it once, in pageContent.
    const kept = await call("errand_run", { task: readTask(randomUUID(), "extract", { evidenceRetention: "full" }), waitSeconds: 20 });
    assert.equal(kept.isError, undefined, JSON.stringify(kept.content));
    const keptPage = kept.structuredContent?.["pageContent"] as { ephemeral: boolean; values: { name: string; text: string }[] };
    assert.deepEqual([keptPage.ephemeral, keptPage.values.map((v) => [v.name, v.text])], [false, [["title", "Example Domain"]]]);
    assert.equal((kept.structuredContent?.["receipt"] as Record<string, unknown>)["outputs"], undefined, "not repeated in the receipt");

    const writeId = randomUUID();
    await server.ops.service.submit(writeTask(writeId), grant);
    const cancelled = await call("errand_cancel", { operationId: writeId });
    assert.equal(cancelled.structuredContent?.["outcome"], "cancelled");

    const refused = await call("errand_run", { task: { ...readTask(), risk: "consequential" }, waitSeconds: 0 });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]?.text ?? "", /^approval_required: .*submit it again with the approval/);
    assert.match(refused.content[0]?.text ?? "", /\/approved/);
    const missing = await call("errand_collect", { operationId: randomUUID() });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0]?.text ?? "", /^operation_not_found/);

    const clientId = (provider.info as { client_id: string }).client_id;
    const events = await server.ops.store.readJournalEvents(0, 1000);
    const requests = events.filter((e) => e.type === "request_recorded").map((e) => JSON.parse(e.body ?? "{}") as Record<string, unknown>);
    assert.ok(requests.some((r) => r["actor"] === `oauth:${clientId}` && r["action"] === "submit" && r["operationId"] === ranId && r["via"] === "mcp"));
    assert.ok(
      requests.some((r) => r["actor"] === `oauth:${clientId}` && r["action"] === "cancel" && r["operationId"] === writeId && r["result"] === "cancelled"),
    );
    const auth = events.filter((e) => e.type === "auth_changed").map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
    assert.deepEqual(auth.slice(0, 3), ["client_registered", "consent_approved", "tokens_issued"]);
    assert.equal((await server.ops.service.verifyJournal()).ok, true);
  });

  test("a token issued for this server's resource is refused by another resource on the same store", async () => {
    const other = await startAppServer({ home: server.ops.home });
    try {
      const response = await fetch(`${other.origin}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.saved?.access_token ?? ""}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(response.status, 401);
      assert.match(response.headers.get("www-authenticate") ?? "", /error="invalid_token".*another resource/);
      const clientId = (provider.info as { client_id: string }).client_id;
      const refresh = await postForm(`${server.origin}/token`, {
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: provider.saved?.refresh_token ?? "",
        resource: `${other.origin}/mcp`,
      });
      assert.equal(refresh.status, 400);
      assert.equal(refresh.body["error"], "invalid_target");
    } finally {
      await other.close();
    }
  });

  test("refresh rotates; a retry gets the same pair; replaying a spent refresh token whose successor was used is refused and revokes the whole grant", async () => {
    const clientId = (provider.info as { client_id: string }).client_id;
    const first = provider.saved?.refresh_token ?? "";
    const rotated = await postForm(`${server.origin}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first,
      resource: `${server.origin}/mcp`,
    });
    assert.equal(rotated.status, 200);
    const second = String(rotated.body["refresh_token"]);
    assert.notEqual(second, first);
    assert.equal(rotated.body["token_type"], "Bearer");
    const retried = await postForm(`${server.origin}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first,
      resource: `${server.origin}/mcp`,
    });
    assert.deepEqual(
      [retried.status, retried.body["access_token"], retried.body["refresh_token"]],
      [200, rotated.body["access_token"], second],
      "a retry (answer lost) gets the same pair",
    );
    const third = await postForm(`${server.origin}/token`, { grant_type: "refresh_token", client_id: clientId, refresh_token: second });
    assert.equal(third.status, 200);
    provider.saved = { ...(third.body as unknown as OAuthTokens) };
    const listed = await client.listTools();
    assert.ok(listed.tools.length > 0, "the rotated access token works");

    const replay = await postForm(`${server.origin}/token`, { grant_type: "refresh_token", client_id: clientId, refresh_token: first });
    assert.equal(replay.status, 400);
    assert.equal(replay.body["error"], "invalid_grant");
    const afterReplay = await postForm(`${server.origin}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: String(third.body["refresh_token"]),
    });
    assert.equal(afterReplay.body["error"], "invalid_grant", "the newest refresh token died with its family");
    const revoked = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${String(third.body["access_token"])}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(revoked.status, 401);
  });
});
