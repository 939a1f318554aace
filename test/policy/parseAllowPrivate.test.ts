import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { allowanceMatches, parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { dotted } from "./policyFixtures.js";

describe("parseAllowPrivate", () => {
  test("reads HOST:PORT entries from several strings, comma-separated, normalizing hosts", () => {
    const parsed = parseAllowPrivate(["127.0.0.1:8080, Intranet.Corp.:8443", "[0:0:0:0:0:0:0:1]:9000,localhost:3000", "", "127.1:8080"]);
    assert.deepEqual(parsed, {
      ok: true,
      value: [
        { host: "127.0.0.1", port: 8080 },
        { host: "intranet.corp", port: 8443 },
        { host: "::1", port: 9000 },
        { host: "localhost", port: 3000 },
      ],
    });
  });

  test("refuses entries without an exact host and port", () => {
    for (const bad of [
      "127.0.0.1",
      "127.0.0.1:",
      ":8080",
      "::1:8080",
      "[::1]",
      "*.corp:80",
      "host:0",
      "host:65536",
      "host:80x",
      "a b:80",
      "user@host:80",
      "http://host:80",
      "host/x:80",
      "[fe80::1%25eth0]:80",
      "host:-1",
    ]) {
      const parsed = parseAllowPrivate([bad]);
      assert.equal(parsed.ok, false, bad);
      if (!parsed.ok) assert.equal(parsed.errors[0]?.code, "usage");
    }
  });

  test("round-trips any IPv4 or IPv6 address and port", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 65535 }), (n, port) => {
        assert.deepEqual(parseAllowPrivate([`${dotted(n)}:${port}`]), { ok: true, value: [{ host: dotted(n), port }] });
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 1, max: 65535 }), (ip, port) => {
        const parsed = parseAllowPrivate([`[${ip}]:${port}`]);
        assert.ok(parsed.ok, ip);
        assert.ok(allowanceMatches(parsed.value, ip, port), ip);
        assert.ok(!allowanceMatches(parsed.value, ip, port === 1 ? 2 : port - 1));
      }),
    );
  });

  test("matches hosts case-insensitively, without trailing dot or brackets, and never by prefix or suffix", () => {
    const parsed = parseAllowPrivate(["intranet.corp:8443", "[::1]:9000"]);
    assert.ok(parsed.ok);
    assert.ok(allowanceMatches(parsed.value, "INTRANET.corp.", 8443));
    assert.ok(allowanceMatches(parsed.value, "[::1]", 9000));
    assert.ok(allowanceMatches(parsed.value, "0:0:0:0:0:0:0:1", 9000));
    assert.ok(!allowanceMatches(parsed.value, "a.intranet.corp", 8443));
    assert.ok(!allowanceMatches(parsed.value, "intranet.corp.evil", 8443));
    assert.ok(!allowanceMatches(parsed.value, "intranet.corp", 443));
  });
});
