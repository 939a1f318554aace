// errand_run on a platform that cuts every request (ERRAND_REQUEST_LIMIT, no worker pool): a task
// whose longest attempt fits runs within the request and its receipt is in the answer; one that does
// not is queued, not started, by that request or by errand_run_queue, and the answer says what runs
// it. Driven through the real app, MCP over the in-process OAuth grant, with a counting fake executor.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { largestFittingTaskMs, requestDeadlineMs } from "../../../src/core/decideRequestFit.js";
import { createQueueDriver } from "../../../src/interfaces/http/queueDriver.js";
import { runDuePass } from "../../../src/operations/runDuePass.js";
import { createFakeExecutor } from "../../operations/support/fakeExecutor.js";
import { readTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import { inProcess, obtainGrant } from "./support/oauthDance.js";

const LIMIT_MS = 10_000;

type ToolAnswer = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> };

/** Over MCP a result's next step ends its text ("Next: …"), out of the structured content. */
const nextOf = (answer: ToolAnswer): string => (answer.content[0]?.text ?? "").split("\nNext: ")[1] ?? "";

test("with a request limit, errand_run runs a task that fits within the request and queues one that does not, unstarted", async () => {
  const fake = createFakeExecutor();
  const h = await openAppHarness({ execute: fake.execute });
  // The platform's limit, as the fetch entry wires it: the driver every in-process run goes through.
  const limited = createQueueDriver({ service: h.ops.service, logger: h.deps.logger, requestLimitMs: LIMIT_MS });
  h.deps.queue = limited;
  try {
    const grant = await obtainGrant(inProcess(h.request), "http://127.0.0.1:8787", OWNER_PASSWORD, CALLBACK);
    let rpcId = 0;
    const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
      const response = await h.request("/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${grant.accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } }),
      });
      const text = await response.text();
      const body = JSON.parse(text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: ")) ?? "data: {}").slice(6)) as {
        result?: ToolAnswer;
      };
      assert.ok(body.result !== undefined, text);
      return body.result;
    };
    const callsFor = (id: string): number => fake.calls.filter((c) => c.operationId === id).length;

    // 1 s of browser time: at most 6.4 s with errand's graces and the receipt's writing, within 8 s.
    const fits = randomUUID();
    const ran = await call("errand_run", { task: readTask(fits, undefined, { timeouts: { taskMs: 1_000 } }), waitSeconds: 45 });
    assert.equal(ran.isError, undefined, JSON.stringify(ran));
    assert.equal(ran.structuredContent?.["status"], "completed");
    assert.equal((ran.structuredContent?.["receipt"] as { status?: string } | undefined)?.status, "PASS");
    assert.equal(callsFor(fits), 1);

    // The default 30 s of browser time can take 45 s: more than the request has. Not started, answered at once.
    const long = randomUUID();
    const started = Date.now();
    const queued = await call("errand_run", { task: readTask(long), waitSeconds: 45 });
    assert.ok(Date.now() - started < 5_000, "answered without waiting for anything");
    assert.equal(queued.structuredContent?.["status"], "pending");
    const next = nextOf(queued);
    assert.match(next, /^Queued, not started: its longest possible attempt \(45 s: .*\) does not fit this server's request limit \(10 s\)/);
    assert.match(next, /errand_run_queue neither/);
    assert.match(next, /`deno task runner`.*when the owner has turned it on, or `errand runner` on a host sharing this database/);
    assert.match(next, new RegExp(`timeouts\\.taskMs of at most ${largestFittingTaskMs(requestDeadlineMs(0, LIMIT_MS))}\\b`));
    assert.equal(callsFor(long), 0, "the request did not start it");
    const inspected = await call("errand_inspect", { operationId: long });
    assert.equal((inspected.structuredContent?.["operation"] as { attempts?: number } | undefined)?.attempts, 0);

    // errand_run_queue drains only what fits a request: it is left queued again, and the answer says so.
    const drained = await call("errand_run_queue", { waitSeconds: 30 });
    assert.equal(drained.structuredContent?.["finished"], true, JSON.stringify(drained));
    assert.match(nextOf(drained), /1 due operation\(s\) were left queued: .* request limit \(10 s\)/);
    assert.equal(callsFor(long), 0, "no request started it");

    // errand_capabilities says how long a run may take here.
    const capabilities = await call("errand_capabilities", {});
    const request = (capabilities.structuredContent?.["limits"] as { request?: Record<string, unknown> } | undefined)?.request;
    assert.equal(request?.["limitSeconds"], 10);
    assert.equal(request?.["largestTaskMs"], largestFittingTaskMs(requestDeadlineMs(0, LIMIT_MS)));
    assert.match(capabilities.content[0]?.text ?? "", /never past the platform's request limit of 10 s/);

    // The interval entry's pass, with the time, runs it; collect then has the receipt.
    const pass = await runDuePass(h.ops.service, { budgetMs: 60_000 });
    assert.deepEqual(
      pass.attempts.map((a) => [a.operationId, a.status]),
      [[long, "PASS"]],
    );
    assert.equal(callsFor(long), 1);
    const collected = await call("errand_collect", { operationId: long });
    assert.equal(collected.structuredContent?.["status"], "completed");
  } finally {
    await limited.close();
    await h.close();
  }
});

test("an attempt started within a request outlives a shorter wait, and settled() resolves once it has ended", async () => {
  const fake = createFakeExecutor();
  const h = await openAppHarness({ execute: fake.execute });
  const limited = createQueueDriver({ service: h.ops.service, logger: h.deps.logger, requestLimitMs: LIMIT_MS });
  h.deps.queue = limited;
  try {
    const token = await h.apiToken("owner-ish", "all");
    const grant = await obtainGrant(inProcess(h.request), "http://127.0.0.1:8787", OWNER_PASSWORD, CALLBACK);
    const id = randomUUID();
    // "hang" holds the browser until the runner aborts it, one grace past its 1 s: longer than a 0 s wait.
    const response = await h.request("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${grant.accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "errand_run", arguments: { task: readTask(id, "hang", { timeouts: { taskMs: 1_000 } }), waitSeconds: 0 } },
      }),
    });
    assert.match(await response.text(), /"status":"pending"/);
    await limited.settled();
    assert.ok(
      fake.calls.some((c) => c.operationId === id),
      "the run the request started went on after its answer",
    );
    const inspected = (await (await h.request(`/v1/operations/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      operation: { leaseOwner: string | null };
    };
    assert.equal(inspected.operation.leaseOwner, null, "no attempt holds it once settled() has resolved");
  } finally {
    await limited.close();
    await h.close();
  }
});

test("without a request limit, errand_capabilities says errand_run waits up to waitSeconds", async () => {
  const h = await openAppHarness();
  try {
    const response = await h.request("/v1/capabilities", { headers: { authorization: `Bearer ${await h.apiToken()}` } });
    const body = (await response.json()) as { limits: { request: { limitSeconds: number | null; note: string } } };
    assert.equal(body.limits.request.limitSeconds, null);
    assert.match(body.limits.request.note, /^No request limit: errand_run runs the task in this server and waits up to waitSeconds\./);
  } finally {
    await h.close();
  }
});
