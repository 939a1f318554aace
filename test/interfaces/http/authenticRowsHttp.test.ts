// The owner password and API tokens over HTTP, from the side of an attacker who can write errand.db
// but does not hold the master key: their own password hash put in the owner's row logs nobody into
// /owner or the consent page, so a waiting consequential write is never approved (the counting site
// sees no POST), and a revoked API token set back to live stays 401. In process, real SQLite file.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import { hashOwnerPassword } from "../../../src/interfaces/http/oauth/ownerPassword.js";
import { startCountingServer } from "../../operations/support/countingServer.js";
import { writeTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { answerConsent, inProcess, openConsent, pkcePair } from "./support/oauthDance.js";

const ORIGIN = "http://127.0.0.1:8787";
const ATTACKER_PASSWORD = "the attacker's own password";

function consequential(id: string): Record<string, unknown> {
  return {
    ...writeTask(id, undefined, { target: { url: "https://shop.example.com/cart" } }),
    risk: "consequential",
    steps: [
      { action: "click", selector: "#pay" },
      { action: "expect_text", text: "Paid" },
    ],
  };
}

function tamper(h: AppHarness, sql: string, ...params: unknown[]): void {
  const db = openSqliteDatabase(h.ops.dbPath);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** GET /owner, then POST /owner/login with its CSRF cookie: the response to the login. */
async function logIn(h: AppHarness, password: string): Promise<Response> {
  const page = await h.request("/owner");
  const csrf = /name="csrf" value="([^"]*)"/.exec(await page.text())?.[1] ?? "";
  const cookie = (page.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  return h.request("/owner/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, cookie },
    body: new URLSearchParams({ csrf, password, next: "/owner" }).toString(),
    redirect: "manual",
  });
}

describe("rows that grant authority, over HTTP", () => {
  test("an owner hash replaced with the attacker's own logs nobody in and approves nothing; an un-revoked API token stays 401", async () => {
    const site = await startCountingServer();
    const h = await openAppHarness({ fixtureOrigin: site.origin, ownerSecretInStore: true });
    try {
      const apiToken = await h.apiToken("script");
      const id = randomUUID();
      const submitted = await h.request("/v1/operations", {
        method: "POST",
        headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
        body: JSON.stringify(consequential(id)),
      });
      assert.equal(((await submitted.json()) as { status: string }).status, "awaiting_approval");

      tamper(h, "UPDATE owner_secret SET encoded = ?", await hashOwnerPassword(ATTACKER_PASSWORD));
      const login = await logIn(h, ATTACKER_PASSWORD);
      assert.notEqual(login.status, 303, "the attacker's password opens no console session");
      assert.ok(!login.headers.getSetCookie().some((c) => c.startsWith("errand_owner=")), "no session cookie");
      assert.equal((await logIn(h, OWNER_PASSWORD)).status === 303, false, "nor does the owner's old one: the row is refused, not reinterpreted");
      assert.ok(
        h.logs.some((l) => l.level === "error" && /owner_secret/.test(l.message)),
        "the refusal is logged, naming the table",
      );

      const fetcher = inProcess(h.request);
      const registered = (await (
        await fetcher(`${ORIGIN}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: "attacker", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" }),
        })
      ).json()) as { client_id: string };
      const { challenge } = await pkcePair();
      const query = new URLSearchParams({
        response_type: "code",
        client_id: registered.client_id,
        redirect_uri: CALLBACK,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s",
      });
      const consent = await openConsent(fetcher, `${ORIGIN}/authorize?${query.toString()}`);
      const answer = await answerConsent(fetcher, ORIGIN, consent, { decision: "approve", password: ATTACKER_PASSWORD });
      assert.ok(!(answer.headers.get("location") ?? "").includes("code="), "the consent page issues no code for the attacker's password");

      await h.queue.kick();
      const still = await h.ops.service.inspect(id);
      assert.equal(still.ok && still.status, "awaiting_approval");
      assert.equal(site.count("POST", `/write/${id}`), 0, "nothing reached the site");

      // Revocation lives under the row's MAC.
      const revokedToken = await h.apiToken("revoked");
      const tokenId = (await h.access.listApiTokens()).find((t) => t.name === "revoked")?.tokenId ?? "";
      await h.access.revokeApiToken(tokenId);
      const probe = () => h.request("/v1/status", { headers: { authorization: `Bearer ${revokedToken}` } });
      assert.equal((await probe()).status, 401);
      tamper(h, "UPDATE api_tokens SET revoked_ms = NULL WHERE token_id = ?", tokenId);
      assert.equal((await probe()).status, 401, "setting revoked_ms back to NULL does not revive the token");
      assert.ok(
        h.logs.some((l) => l.level === "warn" && /fails its MAC/.test(l.message) && l.fields?.["table"] === "api_tokens" && l.fields["id"] === tokenId),
        "the refused row is logged by table and id",
      );
      assert.equal((await h.request("/v1/status", { headers: { authorization: `Bearer ${apiToken}` } })).status, 200, "an untouched token still works");

      // The owner, who holds the key, sets the password again: only then does a login succeed.
      await h.access.writeOwnerSecret(await hashOwnerPassword(OWNER_PASSWORD));
      assert.equal((await logIn(h, ATTACKER_PASSWORD)).status === 303, false);
      assert.equal((await logIn(h, OWNER_PASSWORD)).status, 303);
    } finally {
      await h.close();
      await site.close();
    }
  });
});
