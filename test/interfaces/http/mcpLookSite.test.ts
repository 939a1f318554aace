// errand_look with a site over MCP: the tool hands the site to the same look REST uses (which loads
// the site's saved session; test/sites/siteTasks.test.ts drives it in Chromium), and a site whose
// login has lapsed answers login_required with the owner's login page, as every interface does.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { LookResult } from "../../../src/executor/lookAtPage.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import { inProcess, obtainGrant } from "./support/oauthDance.js";

const NETWORK = { nonGetAborted: 0, blockedRequests: 0, navigationsBlocked: 0, egressBlocked: 0, blocked: [] };
const LOGIN_PAGE = "https://errand.example/owner/sites/library/login";

test("errand_look passes the site to the look, and a lapsed login answers login_required naming the login page", async () => {
  const h = await openAppHarness();
  try {
    const seen: unknown[] = [];
    h.deps.look = (request: unknown): Promise<LookResult> => {
      seen.push(request);
      return Promise.resolve({
        ok: false,
        kind: "failed",
        status: "BLOCKED",
        provider: "local",
        network: NETWORK,
        error: { code: "login_required", message: `The site library is not logged in. Ask the person to log in at ${LOGIN_PAGE}, then try again.`, step: null },
      });
    };
    const grant = await obtainGrant(inProcess(h.request), "http://127.0.0.1:8787", OWNER_PASSWORD, CALLBACK);
    const response = await h.request("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${grant.accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "errand_look", arguments: { url: "https://library.example/account", site: "library" } },
      }),
    });
    const text = await response.text();
    const body = JSON.parse(text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: ")) ?? "data: {}").slice(6)) as {
      result?: { isError?: boolean; content: { text: string }[] };
    };
    assert.deepEqual(seen, [{ url: "https://library.example/account", site: "library" }]);
    assert.equal(body.result?.isError, true, text);
    assert.match(
      body.result?.content[0]?.text ?? "",
      /^login_required: .*Ask the person to log in at https:\/\/errand\.example\/owner\/sites\/library\/login, then try again/,
    );
  } finally {
    await h.close();
  }
});
