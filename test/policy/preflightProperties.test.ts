import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { classifyIp } from "../../src/policy/classifyIp.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { checkUrlWithoutDns, preflightUrl } from "../../src/policy/preflightUrl.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { dotted } from "./policyFixtures.js";
import { propertyRuns } from "../support/propertyRuns.js";

const uint32 = fc.integer({ min: 0, max: 0xffffffff });
const RUNS = propertyRuns(1000);
const noDns = createStaticResolver({}, "no-dns");

/** Writes one octet in a randomly chosen radix the way WHATWG accepts: decimal, 0x-hex or 0-octal. */
const octetSpelling = (octet: number, radix: 0 | 1 | 2, upper: boolean): string => {
  if (radix === 1) return `${upper ? "0X" : "0x"}${upper ? octet.toString(16).toUpperCase() : octet.toString(16)}`;
  if (radix === 2) return `0${octet.toString(8)}`;
  return String(octet);
};

const publicIpv4 = uint32.filter((n) => classifyIp(dotted(n)).verdict === "public");
const publicIpv6 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
  .map((parts) => [(0x2000 | (parts[0]! & 0x1fff)).toString(16), ...parts.slice(1).map((p) => p.toString(16))].join(":"))
  .filter((ip) => classifyIp(ip).verdict === "public");
const blockedAddress = fc.oneof(
  uint32.map(dotted).filter((ip) => classifyIp(ip).verdict === "blocked"),
  fc.constantFrom("::1", "::", "fe80::1", "fd00::1", "::ffff:7f00:1", "64:ff9b::a00:1", "2002:a00:1::", "2001:db8::1", "4000::1"),
);
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/).filter((l) => !l.startsWith("xn--"));

describe("preflightUrl properties", () => {
  test("decodes every per-octet radix mix of an IPv4 address to the same host and the same verdict as classifyIp", async () => {
    await fc.assert(
      fc.asyncProperty(uint32, fc.array(fc.constantFrom<0 | 1 | 2>(0, 1, 2), { minLength: 4, maxLength: 4 }), fc.boolean(), async (n, radixes, upper) => {
        const ip = dotted(n);
        const octets = ip.split(".").map(Number);
        const spelled = octets.map((o, i) => octetSpelling(o, radixes[i]!, upper)).join(".");
        const verdict = await preflightUrl(`http://${spelled}/`, { resolver: noDns });
        assert.equal(verdict.host, ip);
        assert.equal(verdict.verdict, classifyIp(ip).verdict === "public" ? "allow" : "block", spelled);
      }),
      RUNS,
    );
  });

  test("gives the dword, hex and short forms the same verdict as the dotted quad", async () => {
    await fc.assert(
      fc.asyncProperty(uint32, async (n) => {
        const ip = dotted(n);
        const expected = classifyIp(ip).verdict === "public" ? "allow" : "block";
        const [a, b] = ip.split(".").map(Number) as [number, number];
        for (const spelled of [String(n), `0x${n.toString(16)}`, `${a}.${n & 0xffffff}`, `${a}.${b}.${n & 0xffff}`, `0${n.toString(8)}`]) {
          const verdict = await preflightUrl(`https://${spelled}/`, { resolver: noDns });
          assert.equal(verdict.host, ip, spelled);
          assert.equal(verdict.verdict, expected, spelled);
        }
      }),
      RUNS,
    );
  });

  test("blocks a name when any one of its answers is not public, wherever it sits among public ones", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(publicIpv4.map(dotted), { maxLength: 4 }), blockedAddress, fc.nat(), async (good, bad, at) => {
        const answers = [...good];
        answers.splice(at % (good.length + 1), 0, bad);
        const verdict = await preflightUrl("https://victim.example/", { resolver: createStaticResolver({ "victim.example": answers }) });
        assert.equal(verdict.verdict, "block");
        assert.equal(verdict.code, "dns_private_answer");
        assert.equal(verdict.addresses.length, answers.length, "every answer is reported");
      }),
      RUNS,
    );
  });

  test("allows a name whose answers are all public, and reports each of them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(publicIpv4.map(dotted), publicIpv6), { minLength: 1, maxLength: 6 }), async (answers) => {
        const verdict = await preflightUrl("https://site.example/", { resolver: createStaticResolver({ "site.example": answers }) });
        assert.equal(verdict.verdict, "allow", verdict.reason);
        assert.ok(verdict.addresses.every((a) => a.verdict === "public"));
      }),
      RUNS,
    );
  });

  test("blocks any URL that carries userinfo, whatever the host", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12 }), fc.option(fc.string({ maxLength: 12 })), async (user, password) => {
        const userinfo = encodeURIComponent(user) + (password === null ? "" : `:${encodeURIComponent(password)}`);
        const verdict = await preflightUrl(`https://${userinfo}@example.com/`, { resolver: noDns });
        assert.equal(verdict.code, "userinfo_blocked");
        assert.ok(verdict.url !== null && !verdict.url.includes("@"), "credentials are not echoed back");
      }),
      RUNS,
    );
  });

  test("blocks every port but the scheme's default when no allowance names it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("http", "https"), fc.integer({ min: 0, max: 65535 }), async (scheme, port) => {
        const verdict = await preflightUrl(`${scheme}://example.com:${port}/`, { resolver: createStaticResolver({ "example.com": ["93.184.215.14"] }) });
        const isDefault = (scheme === "http" && port === 80) || (scheme === "https" && port === 443);
        assert.equal(verdict.verdict, isDefault ? "allow" : "block", `${scheme}:${port}`);
      }),
      RUNS,
    );
  });

  test("never lets an allowance for one host:port open another port or another private host", async () => {
    await fc.assert(
      fc.asyncProperty(blockedAddress, fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }), async (ip, allowedPort, port) => {
        fc.pre(allowedPort !== port);
        const host = ip.includes(":") ? `[${ip}]` : ip;
        const allowances = parseAllowPrivate([`${host}:${allowedPort}`]);
        assert.ok(allowances.ok);
        const verdict = await preflightUrl(`http://${host}:${port}/`, { resolver: noDns, allowPrivate: allowances.value });
        assert.equal(verdict.verdict, "block");
        const admitted = await preflightUrl(`http://${host}:${allowedPort}/`, { resolver: noDns, allowPrivate: allowances.value });
        assert.equal(admitted.verdict, "allow", admitted.reason);
      }),
      RUNS,
    );
  });

  test("blocks every name under localhost and the private-use suffixes, whatever it resolves to", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(label, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("localhost", "internal", "local", "home.arpa", "localdomain", "lan", "svc", "google.internal"),
        async (labels, suffix) => {
          const host = `${labels.join(".")}.${suffix}`;
          const verdict = await preflightUrl(`https://${host}/`, { resolver: createStaticResolver({ [host]: ["93.184.215.14"] }) });
          assert.equal(verdict.code, "name_blocked", host);
        },
      ),
      RUNS,
    );
  });

  test("blocks single-label names whatever they resolve to", async () => {
    await fc.assert(
      fc.asyncProperty(
        label.filter((l) => !/^(?:\d+|0x[0-9a-f]*)$/.test(l)),
        async (name) => {
          const verdict = await preflightUrl(`http://${name}/`, { resolver: createStaticResolver({ [name]: ["93.184.215.14"] }) });
          assert.equal(verdict.code, "name_blocked", name);
        },
      ),
      RUNS,
    );
  });

  test("checkUrlWithoutDns agrees with preflightUrl whenever the preflight decided without DNS", async () => {
    const url = fc.oneof(
      uint32.map((n) => `http://${n}/`),
      fc.tuple(label, label).map(([a, b]) => `https://${a}.${b}/`),
      fc.tuple(fc.constantFrom("http", "https", "ftp", "ws"), label, fc.integer({ min: 0, max: 70000 })).map(([s, l, p]) => `${s}://${l}.example:${p}/`),
      fc.webUrl(),
    );
    await fc.assert(
      fc.asyncProperty(url, async (raw) => {
        const full = await preflightUrl(raw, { resolver: noDns });
        const quick = checkUrlWithoutDns(raw);
        if (full.code === "dns_failed") {
          assert.equal(quick.verdict, "allow");
          assert.deepEqual(quick.addresses, []);
        } else {
          assert.deepEqual(quick, full);
        }
      }),
      RUNS,
    );
  });
});
