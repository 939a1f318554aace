// A next-step text names the call the caller can make: REST answers name routes, never an MCP tool
// a script cannot see; MCP answers name the tools.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { callName } from "../../../src/interfaces/http/callNames.js";
import { nextStep } from "../../../src/interfaces/http/presentResult.js";
import { readTask } from "../../operations/support/tasks.js";
import { openAppHarness } from "./support/appHarness.js";

const TOOL_NAME = /errand_(collect|run_queue|status|capabilities|run|look|inspect|cancel|task_schema)\b/;

test("every next step by status names routes for REST and tools for MCP", () => {
  const id = randomUUID();
  for (const status of ["awaiting_approval", "pending", "completed", "blocked", "uncertain", "cancelled", "compacted"]) {
    assert.doesNotMatch(nextStep("rest", status, id), TOOL_NAME, status);
  }
  assert.match(nextStep("rest", "pending", id), new RegExp(`POST /v1/operations/${id}/collect`));
  assert.match(nextStep("mcp", "pending", id), /errand_collect with operationId/);
  // A server with workers says they run it; one without (a fetch handler) says what does, never that workers will.
  assert.match(nextStep("mcp", "pending", id), /workers run it on their own/);
  const noWorkers = nextStep("mcp", "pending", id, { hasWorkers: false });
  assert.doesNotMatch(noWorkers, /workers run it/);
  assert.match(noWorkers, /no workers of its own.*errand_run_queue.*interval entry/);
  assert.equal(callName("rest", "collect", id), `POST /v1/operations/${id}/collect`);
  assert.equal(callName("mcp", "runQueue"), "errand_run_queue");
});

test("REST submit, collect, inspect and runner answers name no MCP tool", async () => {
  const h = await openAppHarness();
  try {
    const token = await h.apiToken();
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const task = readTask(randomUUID());
    const id = String(task.operationId);
    const submitted = await (await h.request("/v1/operations", { method: "POST", headers, body: JSON.stringify(task) })).text();
    const collected = await (await h.request(`/v1/operations/${id}/collect`, { method: "POST", headers, body: "{}" })).text();
    const inspected = await (await h.request(`/v1/operations/${id}`, { headers })).text();
    const ran = await (await h.request("/v1/runner", { method: "POST", headers, body: JSON.stringify({ waitSeconds: 5 }) })).text();
    for (const [name, text] of Object.entries({ submitted, collected, inspected, ran })) {
      assert.match(text, /"next":/, name);
      assert.doesNotMatch(text, TOOL_NAME, `${name}: ${text}`);
    }
  } finally {
    await h.close();
  }
});
