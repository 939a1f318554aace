// What an HTTP or MCP caller is told when a handler throws: errand's own errors keep their code and
// its status from the one table (a locked database is 503 store_busy, not 500), a server-side
// state is described without the operator's file paths, and anything else is internal_error.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { apiErrorFrom } from "../../../src/interfaces/http/apiErrorFrom.js";
import { ApiError } from "../../../src/interfaces/http/apiError.js";
import { StoreBusyError } from "../../../src/store/storeErrors.js";
import { SecretError } from "../../../src/secrets/secretTypes.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import { inProcess, obtainGrant } from "./support/oauthDance.js";

const BUSY_PATH = "/var/lib/errand-canary-path/errand.db";

describe("the error boundary of the HTTP app and the MCP dispatcher", () => {
  test("apiErrorFrom keeps an ApiError, maps errand's errors by code, hides 5xx messages, and leaves a bug to the caller", () => {
    const api = new ApiError("not_found", "x");
    assert.equal(apiErrorFrom(api), api);
    const busy = apiErrorFrom(new StoreBusyError(`The database ${BUSY_PATH} stayed locked.`));
    assert.equal(busy?.code, "store_busy");
    assert.equal(busy?.status, 503);
    assert.ok(!busy?.message.includes(BUSY_PATH), busy?.message);
    const secret = apiErrorFrom(new SecretError("secret_unknown", "No secret named BANK is declared."));
    assert.equal(secret?.status, 422);
    assert.equal(secret?.message, "No secret named BANK is declared.");
    assert.equal(apiErrorFrom(new TypeError("boom")), null);
    assert.equal(apiErrorFrom("a string"), null);
  });

  test("a locked database during a REST request or an MCP tool call answers store_busy (503 / tool error), never internal_error, and logs it for the operator", async () => {
    const h = await openAppHarness();
    try {
      h.deps.service.status = () => Promise.reject(new StoreBusyError(`The database ${BUSY_PATH} stayed locked.`));
      const token = await h.apiToken();
      const rest = await h.request("/v1/status", { headers: { authorization: `Bearer ${token}` } });
      assert.equal(rest.status, 503);
      const body = (await rest.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, "store_busy");
      assert.ok(!body.error.message.includes(BUSY_PATH));

      const grant = await obtainGrant(inProcess(h.request), "http://127.0.0.1:8787", OWNER_PASSWORD, CALLBACK);
      const call = await h.request("/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${grant.accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "errand_status", arguments: {} } }),
      });
      const text = await call.text();
      const json = JSON.parse(text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: ")) ?? "data: {}").slice(6)) as {
        result?: { isError?: boolean; content: { text: string }[] };
      };
      assert.equal(json.result?.isError, true, text);
      assert.match(json.result?.content[0]?.text ?? "", /^store_busy: /);
      assert.ok(!text.includes(BUSY_PATH));
      assert.ok(h.logs.filter((l) => l.level === "error").length >= 2, JSON.stringify(h.logs.filter((l) => l.level === "error")));
    } finally {
      await h.close();
    }
  });
});
