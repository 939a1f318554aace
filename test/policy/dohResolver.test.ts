import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkDohEndpoint, createDohResolver } from "../../src/policy/dohResolver.js";
import { preflightUrl } from "../../src/policy/preflightUrl.js";

/**
 * A DNS-over-HTTPS (JSON API) stand-in on 127.0.0.1. Each name maps to a handler that decides the
 * answer for one query type; the test asserts what errand asked and what it made of the answer.
 */
type Reply = { status?: number; body?: unknown; raw?: string; hang?: boolean; headers?: Record<string, string> };
let server: Server;
let endpoint: string;
let zone: Record<string, (type: string) => Reply> = {};
const queries: Array<{ name: string; type: string; accept: string | undefined }> = [];

function answer(type: string, records: Array<[string, number, string]>, status = 0): Reply {
  const code = { A: 1, AAAA: 28, CNAME: 5 } as Record<string, number>;
  return {
    body: {
      Status: status,
      Answer: records.filter(([t]) => t === type || t === "CNAME").map(([t, ttl, data]) => ({ name: "x", type: code[t], TTL: ttl, data })),
    },
  };
}

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const name = url.searchParams.get("name") ?? "";
    const type = url.searchParams.get("type") ?? "";
    queries.push({ name, type, accept: req.headers.accept });
    const reply = zone[name]?.(type) ?? { body: { Status: 3 } };
    if (reply.hang === true) return;
    res.writeHead(reply.status ?? 200, { "content-type": "application/dns-json", ...reply.headers });
    res.end(reply.raw ?? JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns-query`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  queries.length = 0;
  zone = {};
});

describe("createDohResolver", () => {
  test("asks for A and AAAA with the dns-json media type and merges the answers, A first", async () => {
    zone["site.example"] = (type) =>
      answer(type, [
        ["A", 60, "93.184.215.14"],
        ["AAAA", 60, "2606:4700:0:0:0:0:6810:84E5"],
      ]);
    const result = await createDohResolver({ endpoint }).resolve("Site.Example.");
    assert.deepEqual(result, { addresses: ["93.184.215.14", "2606:4700::6810:84e5"] });
    assert.deepEqual(queries.map((q) => q.type).sort(), ["A", "AAAA"]);
    assert.ok(queries.every((q) => q.name === "site.example" && q.accept === "application/dns-json"));
  });

  test("follows the answer past CNAME records and reads only records of the asked type", async () => {
    zone["alias.example"] = (type) =>
      answer(type, [
        ["CNAME", 60, "target.example."],
        ["A", 60, "1.1.1.1"],
        ["A", 60, "1.0.0.1"],
      ]);
    assert.deepEqual(await createDohResolver({ endpoint }).resolve("alias.example"), { addresses: ["1.1.1.1", "1.0.0.1"] });
  });

  test("reports NXDOMAIN, no answer, DNS error status, HTTP error and non-JSON as failures", async () => {
    const resolver = createDohResolver({ endpoint });
    zone["empty.example"] = (type) => answer(type, []);
    zone["servfail.example"] = () => ({ body: { Status: 2 } });
    zone["http500.example"] = () => ({ status: 500, raw: "oops" });
    zone["notjson.example"] = () => ({ raw: "<html>" });
    zone["nostatus.example"] = () => ({ body: { Answer: [] } });
    zone["halfbroken.example"] = (type) => (type === "A" ? answer(type, [["A", 60, "8.8.8.8"]]) : { status: 503, raw: "" });
    assert.deepEqual(await resolver.resolve("missing.example"), { error: "nxdomain" });
    assert.deepEqual(await resolver.resolve("empty.example"), { error: "no_answer" });
    for (const name of ["servfail.example", "http500.example", "notjson.example", "nostatus.example", "halfbroken.example"]) {
      const result = await resolver.resolve(name);
      assert.ok("error" in result && result.error === "failure", `${name}: ${JSON.stringify(result)}`);
    }
  });

  test("fails closed on a malformed address or one of the wrong family", async () => {
    const resolver = createDohResolver({ endpoint });
    zone["short.example"] = (type) => answer(type, [["A", 60, "127.1"]]);
    zone["family.example"] = (type) => (type === "AAAA" ? { body: { Status: 0, Answer: [{ type: 28, TTL: 60, data: "127.0.0.1" }] } } : answer(type, []));
    zone["bracket.example"] = (type) => answer(type, [["AAAA", 60, "[::1]"]]);
    zone["number.example"] = () => ({ body: { Status: 0, Answer: [{ type: 1, TTL: 60, data: 2130706433 }] } });
    for (const name of ["short.example", "family.example", "bracket.example", "number.example"]) {
      const result = await resolver.resolve(name);
      assert.ok("error" in result && result.error === "failure", `${name}: ${JSON.stringify(result)}`);
    }
  });

  test("times out a resolver that never answers, and honours the caller's abort", async () => {
    zone["slow.example"] = () => ({ hang: true });
    const started = Date.now();
    assert.deepEqual(await createDohResolver({ endpoint, timeoutMs: 150 }).resolve("slow.example"), { error: "timeout" });
    assert.ok(Date.now() - started < 2_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    assert.deepEqual(await createDohResolver({ endpoint, timeoutMs: 10_000 }).resolve("slow.example", controller.signal), { error: "timeout" });
  });

  test("refuses a redirect from the endpoint and an oversized answer", async () => {
    zone["redirect.example"] = () => ({ status: 302, raw: "", headers: { location: "http://127.0.0.1:1/" } });
    zone["huge.example"] = () => ({ raw: JSON.stringify({ Status: 0, Answer: [], pad: "x".repeat(70_000) }) });
    const resolver = createDohResolver({ endpoint });
    for (const name of ["redirect.example", "huge.example"]) {
      const result = await resolver.resolve(name);
      assert.ok("error" in result && result.error === "failure", `${name}: ${JSON.stringify(result)}`);
    }
  });

  test("caches answers for their smallest TTL, capped, and does not cache failures", async () => {
    let clock = 1_000_000;
    const resolver = createDohResolver({ endpoint, maxTtlSeconds: 60, now: () => clock });
    zone["cached.example"] = (type) =>
      answer(type, [
        ["A", 30, "8.8.8.8"],
        ["A", 20, "8.8.4.4"],
      ]);
    zone["long.example"] = (type) => answer(type, [["A", 86_400, "9.9.9.9"]]);
    await resolver.resolve("cached.example");
    await resolver.resolve("CACHED.example.");
    assert.equal(queries.length, 2, "second lookup served from cache");
    clock += 21_000;
    await resolver.resolve("cached.example");
    assert.equal(queries.length, 4, "expired after the smallest TTL (20 s)");
    await resolver.resolve("long.example");
    clock += 61_000;
    await resolver.resolve("long.example");
    assert.equal(queries.length, 8, "TTL capped at 60 s");
    zone["flaky.example"] = () => ({ status: 500, raw: "" });
    await resolver.resolve("flaky.example");
    await resolver.resolve("flaky.example");
    assert.equal(queries.length, 12, "failures are asked again");
  });

  test("keeps at most maxEntries names, dropping the oldest", async () => {
    const resolver = createDohResolver({ endpoint, maxEntries: 2 });
    for (const name of ["a.example", "b.example", "c.example"]) zone[name] = (type) => answer(type, [["A", 300, "8.8.8.8"]]);
    await resolver.resolve("a.example");
    await resolver.resolve("b.example");
    await resolver.resolve("c.example");
    queries.length = 0;
    await resolver.resolve("c.example");
    await resolver.resolve("b.example");
    assert.equal(queries.length, 0);
    await resolver.resolve("a.example");
    assert.equal(queries.length, 2, "a.example was evicted");
  });

  test("only accepts https endpoints, or plain http to loopback", () => {
    assert.equal(checkDohEndpoint("https://dns.example/dns-query"), null);
    assert.equal(checkDohEndpoint("http://127.0.0.1:8053/dns-query"), null);
    assert.equal(checkDohEndpoint("http://[::1]:8053/dns-query"), null);
    for (const bad of ["http://dns.example/dns-query", "http://10.0.0.1/dns-query", "ftp://dns.example/", "not a url"]) {
      assert.notEqual(checkDohEndpoint(bad), null, bad);
      assert.throws(() => createDohResolver({ endpoint: bad }));
    }
  });

  test("drives preflightUrl end to end: public answers allow, a private answer blocks, a failing resolver blocks", async () => {
    zone["good.example"] = (type) =>
      answer(type, [
        ["A", 60, "93.184.215.14"],
        ["AAAA", 60, "2606:4700::1"],
      ]);
    zone["rebind.example"] = (type) =>
      answer(type, [
        ["A", 60, "93.184.215.14"],
        ["AAAA", 60, "::1"],
      ]);
    zone["down.example"] = () => ({ status: 502, raw: "" });
    const resolver = createDohResolver({ endpoint });
    const good = await preflightUrl("https://good.example/", { resolver });
    assert.equal(good.verdict, "allow");
    assert.equal(good.resolver, `doh:127.0.0.1:${new URL(endpoint).port}`);
    assert.equal((await preflightUrl("https://rebind.example/", { resolver })).code, "dns_private_answer");
    assert.equal((await preflightUrl("https://down.example/", { resolver })).code, "dns_failed");
  });
});
