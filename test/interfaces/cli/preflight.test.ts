import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

/**
 * `errand preflight` run in process (the same runCli main.ts calls). DNS never leaves the machine: tests either pass --resolve
 * or point ERRAND_DOH_URL at a DNS-over-HTTPS stand-in on 127.0.0.1.
 */
let doh: Server;
let dohEndpoint: string;

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return errandInProcess(["preflight", ...args], baseEnv({ ERRAND_DOH_URL: dohEndpoint, ...env }));
}

async function runJson(args: string[], env: Record<string, string> = {}): Promise<{ code: number; json: Record<string, unknown> }> {
  const result = await run([...args, "--json"], env);
  assert.equal(result.stderr, "");
  const envelope = JSON.parse(result.stdout) as { ok: boolean; status: string; data: Record<string, unknown> };
  assert.equal(envelope.ok, result.code === 0);
  assert.equal(envelope.status, envelope.data["verdict"]);
  return { code: result.code, json: envelope.data };
}

before(async () => {
  const zone: Record<string, { A?: string[]; AAAA?: string[] }> = {
    "site.example": { A: ["93.184.215.14"], AAAA: ["2606:4700::1"] },
    "rebind.example": { A: ["93.184.215.14"], AAAA: ["::1"] },
  };
  doh = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const entry = zone[url.searchParams.get("name") ?? ""];
    const type = url.searchParams.get("type") === "AAAA" ? "AAAA" : "A";
    res.writeHead(200, { "content-type": "application/dns-json" });
    const body =
      entry === undefined ? { Status: 3 } : { Status: 0, Answer: (entry[type] ?? []).map((data) => ({ type: type === "A" ? 1 : 28, TTL: 60, data })) };
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => doh.listen(0, "127.0.0.1", resolve));
  dohEndpoint = `http://127.0.0.1:${(doh.address() as AddressInfo).port}/dns-query`;
});
after(async () => {
  doh.closeAllConnections();
  await new Promise((resolve) => doh.close(resolve));
});

describe("errand preflight", () => {
  test("exits 0 for an allowed URL and prints exactly the documented JSON shape", async () => {
    const { code, json } = await runJson(["HTTPS://Site.Example./a?b#c", "--resolve", "site.example=93.184.215.14,2606:4700::1"]);
    assert.equal(code, 0);
    assert.deepEqual(Object.keys(json), ["verdict", "code", "reason", "url", "host", "addresses"]);
    assert.equal(json["verdict"], "allow");
    assert.equal(json["code"], "ok");
    assert.equal(json["url"], "https://site.example./a?b#c");
    assert.equal(json["host"], "site.example");
    assert.deepEqual(json["addresses"], [
      { ip: "93.184.215.14", verdict: "public" },
      { ip: "2606:4700::1", verdict: "public" },
    ]);
  });

  test("exits 4 (BLOCKED, the shared table) for a blocked URL, with the block's code", async () => {
    const { code, json } = await runJson(["http://0x7f.1/"]);
    assert.equal(code, 4);
    assert.equal(json["code"], "ip_blocked");
    assert.equal(json["url"], "http://127.0.0.1/");
    assert.deepEqual(json["addresses"], [{ ip: "127.0.0.1", verdict: "blocked:loopback" }]);
  });

  test("treats an unparseable URL as a block (exit 4) with its own code and a null url", async () => {
    const { code, json } = await runJson(["http://[::1"]);
    assert.equal(code, 4);
    assert.equal(json["code"], "invalid_url");
    assert.equal(json["url"], null);
  });

  test("applies --allow-host as an allowlist and exits 2 on an invalid entry", async () => {
    const allowed = await runJson(["https://www.site.example/", "--allow-host", "*.site.example", "--resolve", "www.site.example=8.8.8.8"]);
    assert.equal(allowed.code, 0);
    const refused = await runJson(["https://site.example/", "--allow-host", "*.site.example", "--resolve", "site.example=8.8.8.8"]);
    assert.equal(refused.code, 4);
    assert.equal(refused.json["code"], "host_not_allowed");
    const bad = ["localhost", "site.example:443"];
    const codes = await Promise.all(bad.map((entry) => run(["https://site.example/", "--allow-host", entry]).then((r) => r.code)));
    assert.deepEqual(
      codes,
      bad.map(() => 2),
    );
  });

  test("reads --resolve as a complete static DNS: HOST= has no answer and other names do not exist", async () => {
    const empty = await runJson(["https://site.example/", "--resolve", "site.example="]);
    assert.equal(empty.code, 4);
    assert.equal(empty.json["code"], "dns_failed");
    const other = await runJson(["https://other.example/", "--resolve", "site.example=8.8.8.8"]);
    assert.equal(other.json["code"], "dns_failed");
    const v6 = await runJson(["https://v6.example/", "--resolve", "V6.EXAMPLE.=2606:4700::1"]);
    assert.equal(v6.code, 0);
    const rebind = await runJson(["https://site.example/", "--resolve", "site.example=8.8.8.8", "--resolve", "site.example=10.0.0.1"]);
    assert.equal(rebind.json["code"], "dns_private_answer");
  });

  test("admits exact private destinations from --allow-private and ERRAND_ALLOW_PRIVATE, and exits 2 on a bad one", async () => {
    assert.equal((await runJson(["http://127.0.0.1:8080/", "--allow-private", "127.0.0.1:8080"])).code, 0);
    assert.equal((await runJson(["http://[::1]:9000/"], { ERRAND_ALLOW_PRIVATE: "127.0.0.1:8080, [::1]:9000" })).code, 0);
    assert.equal((await run(["http://127.0.0.1:8080/", "--allow-private", "127.0.0.1"])).code, 2);
    assert.equal((await run(["http://127.0.0.1:8080/"], { ERRAND_ALLOW_PRIVATE: "*:8080" })).code, 2);
  });

  test("uses DNS-over-HTTPS by default (endpoint from ERRAND_DOH_URL) and blocks a private AAAA", async () => {
    assert.equal((await runJson(["https://site.example/"])).code, 0);
    const rebind = await runJson(["https://rebind.example/", "--resolver", "doh"]);
    assert.equal(rebind.code, 4);
    assert.equal(rebind.json["code"], "dns_private_answer");
    assert.equal((await runJson(["https://missing.example/"])).json["code"], "dns_failed");
  });

  test("exits 2 on usage errors", async () => {
    const results = await Promise.all([
      run([]),
      run(["https://a.example/", "--resolver", "system", "--resolve", "a.example=8.8.8.8"]),
      run(["https://a.example/", "--resolve", "a.example=127.1"]),
      run(["https://a.example/"], { ERRAND_DOH_URL: "http://dns.example/dns-query" }),
      run(["https://a.example/"], { ERRAND_RESOLVER: "carrier-pigeon" }),
    ]);
    assert.deepEqual(
      results.map((r) => r.code),
      results.map(() => 2),
    );
  });

  test("prints a readable verdict without --json", async () => {
    const result = await run(["http://metadata.google.internal/computeMetadata/v1/"]);
    assert.equal(result.code, 4);
    assert.match(result.stdout, /^block http:\/\/metadata\.google\.internal\/computeMetadata\/v1\/\n/);
    assert.match(result.stdout, /\[name_blocked\]/);
  });
});
