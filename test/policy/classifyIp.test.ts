import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { canonicalIp, classifyIp, parseIp } from "../../src/policy/classifyIp.js";
import { dotted, toUint32 } from "./policyFixtures.js";
import { propertyRuns } from "../support/propertyRuns.js";

/**
 * An independent reference, written as integer intervals straight from the IANA special-purpose
 * registries (plus multicast and the deprecated 6to4 relay), so the property tests compare two
 * different implementations rather than one with itself.
 */
const V4_BLOCKED: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared-cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "ietf-protocol-assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.31.196.0", 24, "as112"],
  ["192.52.193.0", 24, "amt"],
  ["192.88.99.0", 24, "6to4-relay-anycast"],
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "as112"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const v4Interval = ([base, bits]: [string, number, string]): [number, number] => {
  const start = toUint32(base);
  return [start, start + 2 ** (32 - bits) - 1];
};
const v4ReferenceBlocked = (n: number): boolean =>
  V4_BLOCKED.some((block) => {
    const [lo, hi] = v4Interval(block);
    return n >= lo && n <= hi;
  });

const v6ToBig = (ip: string): bigint => ipaddr.IPv6.parse(ip).parts.reduce((acc, part) => (acc << 16n) | BigInt(part), 0n);
const bigToV6 = (n: bigint): string => {
  const parts: string[] = [];
  for (let i = 7; i >= 0; i--) parts.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16));
  return parts.join(":");
};
/** Special blocks inside 2000::/3 (everything outside it is refused wholesale). */
const V6_BLOCKED_IN_GLOBAL: Array<[string, number, string]> = [
  ["2001::", 32, "teredo"],
  ["2001::", 23, "ietf-protocol-assignments"],
  ["2001:db8::", 32, "documentation"],
  ["2002::", 16, "6to4"],
  ["2620:4f:8000::", 48, "as112"],
  ["3fff::", 20, "documentation"],
];
const V6_BLOCKED_OUTSIDE: Array<[string, number, string]> = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::ffff:0:0", 96, "ipv4-mapped"],
  ["::", 96, "ipv4-compatible"],
  ["::ffff:0:0:0", 96, "ipv4-translated"],
  ["64:ff9b::", 96, "nat64"],
  ["64:ff9b:1::", 48, "nat64-local"],
  ["100::", 64, "discard"],
  ["100:0:0:1::", 64, "dummy-prefix"],
  ["5f00::", 16, "segment-routing"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];
const v6Interval = ([base, bits]: [string, number, string]): [bigint, bigint] => {
  const start = v6ToBig(base);
  return [start, start + (1n << BigInt(128 - bits)) - 1n];
};
const GLOBAL: [bigint, bigint] = v6Interval(["2000::", 3, ""]);
const v6ReferenceBlocked = (n: bigint): boolean =>
  n < GLOBAL[0] ||
  n > GLOBAL[1] ||
  V6_BLOCKED_IN_GLOBAL.some((block) => {
    const [lo, hi] = v6Interval(block);
    return n >= lo && n <= hi;
  });

const uint32 = fc.integer({ min: 0, max: 0xffffffff });
const uint128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const RUNS = propertyRuns(2000);

describe("classifyIp", () => {
  test("agrees with the interval reference on random IPv4 addresses", () => {
    fc.assert(
      fc.property(uint32, (n) => {
        assert.equal(classifyIp(dotted(n)).verdict, v4ReferenceBlocked(n) ? "blocked" : "public", dotted(n));
      }),
      propertyRuns(20_000),
    );
  });

  for (const block of V4_BLOCKED) {
    test(`always blocks random addresses in ${block[0]}/${block[1]} (${block[2]})`, () => {
      const [lo, hi] = v4Interval(block);
      fc.assert(
        fc.property(fc.integer({ min: lo, max: hi }), (n) => {
          const verdict = classifyIp(dotted(n));
          assert.equal(verdict.verdict, "blocked");
          if (verdict.verdict === "blocked" && !(block[2] === "reserved" && n === 0xffffffff)) assert.equal(verdict.range, block[2]);
        }),
        RUNS,
      );
    });
  }

  test("passes random addresses from plainly public IPv4 space", () => {
    const publicFirstOctets = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 20, 31, 45, 64, 80, 93, 99, 101, 126, 128, 151, 185, 193, 200, 209, 216, 223];
    fc.assert(
      fc.property(fc.constantFrom(...publicFirstOctets), fc.integer({ min: 0, max: 0xffffff }), (first, rest) => {
        assert.deepEqual(classifyIp(dotted(first * 2 ** 24 + rest)), { verdict: "public" });
      }),
      RUNS,
    );
  });

  test("checks both edges of every IPv4 block and the addresses just outside", () => {
    for (const block of V4_BLOCKED) {
      const [lo, hi] = v4Interval(block);
      for (const n of [lo, hi]) assert.equal(classifyIp(dotted(n)).verdict, "blocked", dotted(n));
      for (const n of [lo - 1, hi + 1]) {
        if (n < 0 || n > 0xffffffff) continue;
        assert.equal(classifyIp(dotted(n)).verdict, v4ReferenceBlocked(n) ? "blocked" : "public", dotted(n));
      }
    }
  });

  test("blocks every address outside 2000::/3 and agrees with the reference on random IPv6", () => {
    fc.assert(
      fc.property(uint128, (n) => {
        assert.equal(classifyIp(bigToV6(n)).verdict, v6ReferenceBlocked(n) ? "blocked" : "public", bigToV6(n));
      }),
      propertyRuns(20_000),
    );
  });

  test("agrees with the reference on random IPv6 inside 2000::/3", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: GLOBAL[0], max: GLOBAL[1] }), (n) => {
        assert.equal(classifyIp(bigToV6(n)).verdict, v6ReferenceBlocked(n) ? "blocked" : "public", bigToV6(n));
      }),
      propertyRuns(20_000),
    );
  });

  for (const block of [...V6_BLOCKED_OUTSIDE, ...V6_BLOCKED_IN_GLOBAL]) {
    test(`always blocks random addresses in ${block[0]}/${block[1]} (${block[2]})`, () => {
      const [lo, hi] = v6Interval(block);
      fc.assert(
        fc.property(fc.bigInt({ min: lo, max: hi }), (n) => {
          const verdict = classifyIp(bigToV6(n));
          assert.equal(verdict.verdict, "blocked", bigToV6(n));
        }),
        RUNS,
      );
    });
  }

  test("blocks every IPv4 embedded in IPv6 (mapped, compatible, translated, NAT64, 6to4, Teredo), public or not", () => {
    fc.assert(
      fc.property(uint32, (n) => {
        const v4 = dotted(n);
        const hi = (n >>> 16).toString(16);
        const lo = (n & 0xffff).toString(16);
        for (const embedded of [
          `::ffff:${v4}`,
          `::ffff:${hi}:${lo}`,
          `::${v4}`,
          `::${hi}:${lo}`,
          `::ffff:0:${v4}`,
          `64:ff9b::${v4}`,
          `64:ff9b::${hi}:${lo}`,
          `64:ff9b:1::${hi}:${lo}`,
          `2002:${hi}:${lo}::1`,
          `2001:0:${hi}:${lo}::1`,
          `2001::${hi}:${lo}`,
        ]) {
          assert.equal(classifyIp(embedded).verdict, "blocked", embedded);
        }
      }),
      RUNS,
    );
  });

  test("refuses the IPv6 space ipaddr.js calls unicast outside 2000::/3 (reference section 0)", () => {
    for (const ip of ["::7f00:1", "::a9fe:a9fe", "::2", "1::1", "4000::1", "e000::1", "fe00::1", "100:0:0:1::1"]) {
      assert.equal(ipaddr.parse(ip).range(), "unicast", `premise: ipaddr.js calls ${ip} unicast`);
      assert.equal(classifyIp(ip).verdict, "blocked", ip);
    }
  });

  test("blocks text that is not a plain IP rather than guessing", () => {
    for (const text of [
      "",
      "localhost",
      "127.1",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "127.000.0.1",
      "[::1]",
      "fe80::1%eth0",
      "::1%25lo",
      "1.2.3.4.5",
      "256.1.1.1",
      " 8.8.8.8",
      "8.8.8.8 ",
      "::g",
      "2001:db8::/32",
    ]) {
      const verdict = classifyIp(text);
      assert.equal(verdict.verdict, "blocked", JSON.stringify(text));
      if (verdict.verdict === "blocked") assert.equal(verdict.range, "not-an-ip");
    }
  });

  test("canonicalizes any IPv6 text, mixed dotted notation included, exactly as WHATWG does", () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        assert.equal(canonicalIp(ip), new URL(`http://[${ip}]/`).hostname.slice(1, -1), ip);
      }),
      propertyRuns(5_000),
    );
    assert.equal(canonicalIp("::1.2.3.4"), "::102:304", "IPv4-compatible stays compatible (ipaddr.js alone reads it as mapped)");
    const compat = classifyIp("::1.2.3.4");
    assert.equal(compat.verdict === "blocked" && compat.range, "ipv4-compatible");
  });

  test("canonicalizes IPv6 text (RFC 5952) and keeps IPv4 as is", () => {
    assert.equal(canonicalIp("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
    assert.equal(canonicalIp("0:0:0:0:0:ffff:127.0.0.1"), "::ffff:7f00:1");
    assert.equal(canonicalIp("8.8.8.8"), "8.8.8.8");
    assert.equal(canonicalIp("08.8.8.8"), null);
    assert.equal(parseIp("[::1]"), null);
  });
});
