// The typed-secret egress rule on its own: what leaks, what is bound, and which origins a socket may
// open to once a secret is armed (a handshake's cookies are never shown to errand, so the origin decides).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Redactor } from "../../src/executor/redactor.js";
import { SecretEgressGuard } from "../../src/executor/secretEgressGuard.js";

const PORTAL = "https://portal.example";

function armed(): SecretEgressGuard {
  const guard = new SecretEgressGuard();
  guard.arm({ name: "portal_pw", sites: [PORTAL], value: "Hunter Two 9x" });
  return guard;
}

describe("SecretEgressGuard", () => {
  test("inactive until a secret is armed; nothing is unbound before", () => {
    const guard = new SecretEgressGuard();
    assert.equal(guard.active, false);
    assert.equal(guard.unboundAt("https://other.example/ws"), null);
  });

  test("unboundAt names the armed secret for any origin but its own sites, whatever the path", () => {
    const guard = armed();
    assert.equal(guard.unboundAt(`${PORTAL}/socket`), null);
    for (const url of ["https://other.example/ws", "http://portal.example/ws", "https://portal.example:8443/ws", "https://sub.portal.example/ws"]) {
      assert.equal(guard.unboundAt(url), "portal_pw", url);
    }
  });

  test("leak sees the value in a header or body toward an unbound origin only", () => {
    const guard = armed();
    assert.equal(guard.leak({ url: "https://other.example/x", headers: { cookie: "sid=HUNTER%20TWO%209X" } }), "portal_pw");
    assert.equal(guard.leak({ url: `${PORTAL}/x`, body: "pw=Hunter Two 9x" }), null);
    assert.equal(guard.leak({ url: "https://other.example/x", body: "nothing here" }), null);
  });

  test("leak sees a partial echo: any 8 consecutive characters of the value toward an unbound origin, 7 are not enough", () => {
    const guard = armed();
    assert.equal(guard.leak({ url: "https://other.example/x?p=unter%20Two%209x" }), "portal_pw");
    assert.equal(guard.leak({ url: "https://other.example/x", body: "HUNTERTW" }), "portal_pw");
    assert.equal(guard.leak({ url: "https://other.example/x", body: "huntert" }), null);
    assert.equal(guard.leak({ url: `${PORTAL}/x`, body: "unter Two 9x" }), null);
  });

  test("a pattern the redactor already compiled is used as is, and finds the same spellings", () => {
    const redactor = new Redactor();
    redactor.add("Hunter Two 9x");
    const compiled = redactor.patternOf("Hunter Two 9x");
    assert.ok(compiled !== undefined);
    assert.equal(redactor.patternOf("not registered"), undefined);
    const guard = new SecretEgressGuard();
    guard.arm({ name: "portal_pw", sites: [PORTAL], value: "Hunter Two 9x" }, compiled);
    assert.equal(guard.leak({ url: "https://other.example/x", body: "p=hunter+two+9X" }), "portal_pw");
  });
});
