import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkDestination, checkDestinationWithoutDns } from "../../src/policy/checkDestination.js";
import type { Resolver } from "../../src/policy/resolver.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";

describe("checkDestination", () => {
  test("fails closed when the resolver throws, hangs or answers nothing", async () => {
    const throwing: Resolver = { name: "throwing", resolve: () => Promise.reject(new Error("boom")) };
    const hanging: Resolver = { name: "hanging", resolve: () => new Promise(() => undefined) };
    const empty: Resolver = { name: "empty", resolve: () => Promise.resolve({ addresses: [] }) };
    for (const resolver of [throwing, hanging, empty]) {
      const verdict = await checkDestination("site.example", 443, { resolver, timeoutMs: 100 });
      assert.equal(verdict.code, "dns_failed", resolver.name);
      assert.equal(verdict.resolver, resolver.name);
    }
  });

  test("blocks an answer that is not an IP at all", async () => {
    const odd: Resolver = { name: "odd", resolve: () => Promise.resolve({ addresses: ["8.8.8.8", "localhost"] }) };
    assert.equal((await checkDestination("site.example", 443, { resolver: odd })).verdict, "block");
  });

  test("does not ask DNS for names refused by name, by allowlist or by port", async () => {
    let asked = 0;
    const counting: Resolver = {
      name: "counting",
      resolve: () => {
        asked++;
        return Promise.resolve({ addresses: ["8.8.8.8"] });
      },
    };
    await checkDestination("metadata.google.internal", 80, { resolver: counting });
    await checkDestination("site.example", 443, { resolver: counting, allowedHosts: ["other.example"] });
    await checkDestination("site.example", 8080, { resolver: counting });
    assert.equal(asked, 0);
  });

  test("answers localhost names from RFC 6761 when an allowance names them, without asking DNS", async () => {
    const verdict = await checkDestination("localhost", 3000, { resolver: createStaticResolver({}), allowPrivate: [{ host: "localhost", port: 3000 }] });
    assert.equal(verdict.verdict, "allow");
    assert.deepEqual(
      verdict.addresses.map((a) => a.ip),
      ["127.0.0.1", "::1"],
    );
  });
});

describe("checkDestinationWithoutDns", () => {
  test("decides literals and name rules, and leaves names that need DNS allowed with no addresses", () => {
    assert.equal(checkDestinationWithoutDns("169.254.169.254", 80).code, "ip_blocked");
    assert.equal(checkDestinationWithoutDns("[fd00:ec2::254]", 80).code, "ip_blocked");
    assert.equal(checkDestinationWithoutDns("metadata.google.internal", 80).code, "name_blocked");
    assert.equal(checkDestinationWithoutDns("site.example", 8443).code, "port_blocked");
    const open = checkDestinationWithoutDns("site.example", 443);
    assert.equal(open.verdict, "allow");
    assert.deepEqual(open.addresses, []);
    assert.equal(open.resolver, "none");
  });
});
