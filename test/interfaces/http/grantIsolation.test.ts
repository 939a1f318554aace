// Isolation between grants, from the attacker's side. Three OAuth grants (two of them approvals of
// one client id, as many ChatGPT users share one client with Client ID Metadata Documents) drive the
// real MCP SDK client over a real loopback socket, and two API tokens drive REST. Grant B (and A's
// own client id under another approval) tries to collect, inspect, cancel, see the approval of,
// attach to and drain-report grant A's operations; each answer must be exactly the answer an unknown
// id gets, with nothing of A's (extracted values, approval, digest) in it, and nothing run again at
// the counting site. A itself, the owner and an operator token (--scope all) do see them.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startCountingServer } from "../../operations/support/countingServer.js";
import type { CountingServer } from "../../operations/support/countingServer.js";
import { readTask, writeTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

/** What the fake executor's "extract" label extracts: A's value, which no one else may read. */
const EXTRACTED = "Example Domain";

function consequential(id: string): Record<string, unknown> {
  return {
    ...writeTask(id),
    risk: "consequential",
    steps: [
      { action: "click", selector: "#pay" },
      { action: "expect_text", text: "Paid" },
    ],
  };
}

/** An answer with its operation id blanked, so the answer about one id compares with the answer about another. */
const blank = (answer: unknown, id: string): string => JSON.stringify(answer).replaceAll(id, "<id>");

describe("isolation between grants", { timeout: 120_000 }, () => {
  let site: CountingServer;
  let server: AppHarness & { origin: string };
  const clients: Client[] = [];
  let a: Client;
  let b: Client;
  let sameClientOtherGrant: Client;
  let accessA = "";

  const connect = async (accessToken: string): Promise<Client> => {
    const client = new Client({ name: "isolation-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  before(async () => {
    site = await startCountingServer();
    server = await startAppServer({ fixtureOrigin: site.origin });
    const grantA = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    const grantB = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    const grantA2 = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK, {}, grantA.clientId);
    accessA = grantA.accessToken;
    a = await connect(grantA.accessToken);
    b = await connect(grantB.accessToken);
    sameClientOtherGrant = await connect(grantA2.accessToken);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.close();
    await site?.close();
  });

  test("MCP: another grant, even under the same client id, gets for A's operations exactly what an unknown id gets; A and the owner see them", async () => {
    const readId = randomUUID();
    const ran = await call(a, "errand_run", { task: readTask(readId, "extract"), waitSeconds: 20 });
    assert.equal(ran.structuredContent?.["status"], "completed", ran.content[0]?.text);
    assert.match(JSON.stringify(ran.structuredContent?.["pageContent"]), new RegExp(EXTRACTED));
    const waitingId = randomUUID();
    const waiting = await call(a, "errand_run", { task: consequential(waitingId), waitSeconds: 0 });
    assert.equal(waiting.structuredContent?.["status"], "awaiting_approval");
    const digest = (waiting.structuredContent?.["handle"] as { requestDigest: string }).requestDigest;

    const answers: string[] = [];
    for (const attacker of [b, sameClientOtherGrant]) {
      for (const [name, extra] of [
        ["errand_collect", { waitSeconds: 1 }],
        ["errand_inspect", {}],
        ["errand_cancel", { controlActionId: randomUUID() }],
      ] as const) {
        const unknown = randomUUID();
        const expected = blank(await call(attacker, name, { operationId: unknown, ...extra }), unknown);
        for (const id of [readId, waitingId]) {
          const answer = await call(attacker, name, { operationId: id, ...extra });
          answers.push(JSON.stringify(answer));
          assert.equal(answer.isError, true, `${name} on A's operation`);
          assert.match(answer.content[0]?.text ?? "", /^operation_not_found: /);
          assert.equal(blank(answer, id), expected, `${name}: A's operation answers as an unknown id`);
        }
      }
      // The same id again, with A's very task and with another: "taken", the same either way, nothing run.
      const same = await call(attacker, "errand_run", { task: readTask(readId, "extract"), waitSeconds: 5 });
      const other = await call(attacker, "errand_run", { task: readTask(readId), waitSeconds: 5 });
      answers.push(JSON.stringify(same), JSON.stringify(other));
      assert.equal(same.isError, true);
      assert.match(same.content[0]?.text ?? "", /^identity_mismatch: operationId \S+ is already taken/);
      assert.equal(JSON.stringify(same), JSON.stringify(other), "A's request is not revealed by which task matches it");
      assert.equal(same.structuredContent, undefined, "no handle of A's operation");
    }
    for (const [index, text] of answers.entries()) {
      assert.ok(!text.includes(EXTRACTED), `answer ${index} carries A's extracted value`);
      assert.ok(!text.includes(digest) && !/awaiting_approval|approvals\//.test(text), `answer ${index} reveals A's approval`);
    }
    assert.equal(site.count("GET", `/read/${readId}`), 1, "A's read ran once; nobody else's submit ran it again");

    // A drain started by B runs what is due, but reports only B's own attempts.
    const token = await server.access.readToken(server.hasher.hash("access", accessA));
    assert.ok(token !== undefined);
    const queuedId = randomUUID();
    assert.ok((await server.ops.service.submit(readTask(queuedId), { submitter: `oauth:${token.familyId}`, seesAll: false })).ok);
    const drained = await call(b, "errand_run_queue", { waitSeconds: 20 });
    assert.equal(drained.structuredContent?.["finished"], true);
    assert.deepEqual(drained.structuredContent?.["attempts"], [], "B's drain names none of A's operations");

    // A still sees all of it: its approval waiting, its values, its drained operation; and it cancels its own.
    const mine = await call(a, "errand_collect", { operationId: waitingId });
    assert.equal(mine.structuredContent?.["status"], "awaiting_approval");
    assert.ok(mine.structuredContent?.["approval"] !== undefined);
    assert.match(JSON.stringify((await call(a, "errand_collect", { operationId: readId })).structuredContent), new RegExp(EXTRACTED));
    assert.equal((await call(a, "errand_collect", { operationId: queuedId })).structuredContent?.["status"], "completed");
    assert.equal((await call(a, "errand_cancel", { operationId: waitingId })).structuredContent?.["outcome"], "cancelled");
    // The owner (CLI, console) sees every grant's operations.
    const owners = await server.ops.service.collect(readId);
    assert.ok(owners.ok && owners.status === "completed");
    const grantA = { submitter: `oauth:${token.familyId}`, seesAll: false };
    const listed = (query: Parameters<typeof server.ops.service.listOperations>[1]) =>
      server.ops.service.listOperations({ limit: 50 }, query).then((items) => items.map((i) => i.handle.operationId).sort());
    assert.deepEqual(await listed(grantA), [readId, waitingId, queuedId].sort(), "A's list is A's operations");
    assert.deepEqual(await listed({ submitter: "oauth:someone-else", seesAll: false }), []);
    assert.ok((await listed(undefined)).includes(readId), "the owner's list has everyone's");
  });

  test("REST: a token sees only what it submitted, an operator token sees all, and an edited row hands nothing over", async () => {
    const t1 = await server.apiToken("one");
    const t2 = await server.apiToken("two");
    const operator = await server.apiToken("operator", "all");
    const rest = async (token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${server.origin}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    };
    const id = randomUUID();
    assert.equal((await rest(t1, "POST", "/operations", readTask(id, "extract"))).status, 201);
    await rest(t1, "POST", "/runner", { waitSeconds: 20 });
    const own = await rest(t1, "POST", `/operations/${id}/collect`, {});
    assert.equal((own.body as { status: string }).status, "completed");
    assert.match(JSON.stringify(own.body), new RegExp(EXTRACTED));
    const waitingId = randomUUID();
    assert.equal(((await rest(t1, "POST", "/operations", consequential(waitingId))).body as { status: string }).status, "awaiting_approval");

    const probes: [string, string, unknown][] = [
      ["GET", "", undefined],
      ["POST", "/collect", {}],
      ["POST", "/cancel", { controlActionId: randomUUID() }],
      ["GET", "/artifacts/0", undefined],
    ];
    for (const target of [id, waitingId]) {
      for (const [method, suffix, body] of probes) {
        const unknown = randomUUID();
        const expected = await rest(t2, method, `/operations/${unknown}${suffix}`, body);
        const answer = await rest(t2, method, `/operations/${target}${suffix}`, body);
        assert.equal(answer.status, expected.status, `${method} ${suffix}`);
        assert.equal(blank(answer.body, target), blank(expected.body, unknown), `${method} ${suffix}: another token's operation answers as an unknown id`);
        assert.equal((answer.body as { error: { code: string } }).error.code, "operation_not_found");
        assert.ok(!JSON.stringify(answer.body).includes(EXTRACTED));
      }
    }
    assert.equal(((await rest(t1, "GET", `/operations/${waitingId}`)).body as { status: string }).status, "awaiting_approval", "t2's cancel changed nothing");
    assert.equal(
      ((await rest(t1, "GET", `/operations/${id}/artifacts/0`)).body as { error: { code: string } }).error.code,
      "artifact_not_found",
      "t1 is let through to its own (no artifact kept)",
    );
    const seen = await rest(operator, "POST", `/operations/${id}/collect`, {});
    assert.match(JSON.stringify(seen.body), new RegExp(EXTRACTED), "an operator token sees every operation");

    // Someone with the database but not the key names t2 as the submitter, and makes t2 an operator.
    const t2Record = await server.access.readApiToken(server.hasher.hash("api", t2));
    assert.ok(t2Record !== undefined && t2Record.scope === "own");
    const db = openSqliteDatabase(server.ops.dbPath);
    try {
      db.prepare("UPDATE operations SET submitted_by = ? WHERE operation_id = ?").run(`api:${t2Record.tokenId}`, id);
      const edited = await rest(t2, "POST", `/operations/${id}/collect`, {});
      assert.equal((edited.body as { error: { code: string } }).error.code, "journal_tampered", "an edited submitter fails authentication");
      assert.ok(!JSON.stringify(edited.body).includes(EXTRACTED));
      db.prepare("UPDATE api_tokens SET scope = 'all' WHERE token_id = ?").run(t2Record.tokenId);
      assert.equal((await rest(t2, "GET", `/operations/${waitingId}`)).status, 401, "a scope edited into the row is refused, not granted");
    } finally {
      db.close();
    }
  });
});
