// The client address a fetch handler counts lockouts and rate limits under (Deno.serve's peer, handed on
// as env.remoteAddress): a client that forges X-Forwarded-For from an untrusted peer, or from no peer at
// all, is still counted as that peer (or as "unknown"), never as the address it wrote.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { parseTrustedProxies } from "../../../src/interfaces/http/clientAddress.js";
import { handlerClientAddressReader } from "../../../src/interfaces/http/handlerClientAddress.js";

function appReading(trusted: string): Hono {
  const read = handlerClientAddressReader(parseTrustedProxies(trusted));
  const app = new Hono();
  app.get("/", (c) => c.text(read(c)));
  return app;
}

async function seen(app: Hono, env: unknown, forwardedFor?: string): Promise<string> {
  const headers = forwardedFor === undefined ? undefined : { "x-forwarded-for": forwardedFor };
  return (await app.fetch(new Request("http://errand.test/", { headers }), env)).text();
}

test("handlerClientAddressReader: a forged X-Forwarded-For from an untrusted or absent peer is not believed; a trusted proxy's is", async () => {
  const app = appReading("10.0.0.0/8");
  const forged = ["198.51.100.1", "198.51.100.1, 203.0.113.9", "unknown", "", "::1"];
  for (const header of forged) {
    assert.equal(await seen(app, { remoteAddress: "203.0.113.50" }, header), "203.0.113.50", `untrusted peer, X-Forwarded-For "${header}"`);
    // No peer (Val Town gives none): every client is one, whatever it writes.
    for (const env of [undefined, {}, { remoteAddress: "" }, { remoteAddress: 42 }, "203.0.113.50"]) {
      assert.equal(await seen(app, env, header), "unknown", `no peer (${JSON.stringify(env)}), X-Forwarded-For "${header}"`);
    }
  }
  assert.equal(await seen(app, { remoteAddress: "203.0.113.50" }), "203.0.113.50");
  // Behind a trusted proxy, the address it appended is the client; entries a client wrote before it are not.
  assert.equal(await seen(app, { remoteAddress: "10.1.2.3" }, "198.51.100.7"), "198.51.100.7");
  assert.equal(await seen(app, { remoteAddress: "10.1.2.3" }, "1.2.3.4, 198.51.100.7"), "198.51.100.7");
  // IPv6 clients are counted by their /64, so fresh addresses in one allocation give no fresh allowance.
  assert.equal(await seen(app, { remoteAddress: "2001:db8:1:2::5" }), "2001:db8:1:2::/64");
  assert.equal(await seen(app, { remoteAddress: "2001:db8:1:2:ffff::9" }), "2001:db8:1:2::/64");
});
