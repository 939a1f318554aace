import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkAddress } from "../../src/policy/checkAddress.js";
import type { PrivateAllowance } from "../../src/policy/parseAllowPrivate.js";

const allow: PrivateAllowance[] = [
  { host: "127.0.0.1", port: 8080 },
  { host: "db.corp", port: 5432 },
];

describe("checkAddress", () => {
  test("allows public addresses on 80 and 443 only", () => {
    assert.deepEqual(checkAddress("8.8.8.8", 443, []), { verdict: "allow", evidence: { ip: "8.8.8.8", verdict: "public" } });
    assert.equal(checkAddress("2606:4700::1", 80, []).verdict, "allow");
    const port = checkAddress("8.8.8.8", 8080, []);
    assert.equal(port.verdict === "block" && port.code, "port_blocked");
  });

  test("blocks private addresses, naming the range, as ip_blocked for literals and dns_private_answer for names", () => {
    const literal = checkAddress("10.1.2.3", 443, []);
    assert.ok(literal.verdict === "block");
    assert.equal(literal.code, "ip_blocked");
    assert.deepEqual(literal.evidence, { ip: "10.1.2.3", verdict: "blocked:private" });
    const named = checkAddress("169.254.169.254", 80, [], "evil.example");
    assert.ok(named.verdict === "block");
    assert.equal(named.code, "dns_private_answer");
    assert.match(named.reason, /evil\.example/);
  });

  test("admits exactly the allowed IP:port or name:port, and nothing next to it", () => {
    assert.deepEqual(checkAddress("127.0.0.1", 8080, allow), { verdict: "allow", evidence: { ip: "127.0.0.1", verdict: "allowed:loopback" } });
    // An IP allowance admits the IP as written, never a name that resolves to it (rebinding, any public name).
    assert.equal(checkAddress("127.0.0.1", 8080, allow, "fixture.test").verdict, "block");
    assert.equal(checkAddress("127.0.0.1", 8080, allow, "127.0.0.1").verdict, "allow");
    assert.equal(checkAddress("10.9.9.9", 5432, allow, "DB.corp.").verdict, "allow");
    assert.equal(checkAddress("127.0.0.1", 8081, allow).verdict, "block");
    assert.equal(checkAddress("127.0.0.2", 8080, allow).verdict, "block");
    assert.equal(checkAddress("10.9.9.9", 5432, allow, "other.corp").verdict, "block");
    assert.equal(checkAddress("10.9.9.9", 5433, allow, "db.corp").verdict, "block");
    assert.equal(checkAddress("::ffff:127.0.0.1", 8080, allow).verdict, "block");
  });

  test("blocks a URL's explicit non-default port when told the scheme's default", () => {
    assert.equal(checkAddress("8.8.8.8", 443, [], undefined, new Set([80])).verdict, "block");
  });
});
