import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { ServerResponse } from "node:http";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllowPrivate } from "../../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../../src/policy/staticResolver.js";
import { createClientMetadataClients } from "../../../src/interfaces/http/oauth/clientMetadataClients.js";
import { clientIdUrlProblem } from "../../../src/interfaces/http/oauth/clientMetadataDocument.js";
import { createClientMetadataFetcher } from "../../../src/interfaces/http/oauth/clientMetadataFetch.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness } from "./support/appHarness.js";
import { inProcess, obtainGrant, openConsent, pkcePair } from "./support/oauthDance.js";

// A client's metadata document server on loopback (admitted by an operator allowance, as
// --allow-private does), and a second listener that nothing may reach: every connection is counted.
let dir = "";
let site: Server;
let forbidden: Server;
let sitePort = 0;
let forbiddenPort = 0;
const connections = { site: 0, forbidden: 0 };
const documents = new Map<string, (res: ServerResponse) => void>();

const json = (body: unknown) => (res: ServerResponse) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
const docUrl = (path: string) => `https://localhost:${sitePort}${path}`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "errand-cimd-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ],
    { stdio: "pipe" },
  );
  const tls = { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
  site = createServer(tls, (req, res) => {
    const answer = documents.get(req.url ?? "");
    if (answer === undefined) return void res.writeHead(404).end();
    answer(res);
  });
  site.on("connection", () => connections.site++);
  forbidden = createServer(tls, (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  forbidden.on("connection", () => connections.forbidden++);
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => forbidden.listen(0, "127.0.0.1", resolve));
  sitePort = (site.address() as AddressInfo).port;
  forbiddenPort = (forbidden.address() as AddressInfo).port;
  documents.set(
    "/client.json",
    json({
      client_id: docUrl("/client.json"),
      client_name: "ChatGPT (says so)",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  );
  documents.set("/other-id.json", json({ client_id: docUrl("/client.json"), redirect_uris: [CALLBACK] }));
  documents.set("/secret.json", json({ client_id: docUrl("/secret.json"), redirect_uris: [CALLBACK], token_endpoint_auth_method: "client_secret_basic" }));
  documents.set("/evil-redirect.json", json({ client_id: docUrl("/evil-redirect.json"), redirect_uris: ["https://attacker.example/cb"] }));
  documents.set("/big.json", json({ client_id: docUrl("/big.json"), redirect_uris: [CALLBACK], padding: "x".repeat(6000) }));
  documents.set("/chunked-big.json", (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write(`{"client_id":"${docUrl("/chunked-big.json")}","pad":"`);
    for (let i = 0; i < 10; i++) res.write("y".repeat(1000));
    res.end(`"}`);
  });
  documents.set("/slow.json", () => undefined);
  documents.set("/to-private.json", (res) => void res.writeHead(302, { location: `https://127.0.0.1:${forbiddenPort}/client.json` }).end());
});

after(async () => {
  for (const server of [site, forbidden]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

function clients(options: { timeoutMs?: number; extraCa?: boolean } = {}) {
  const allowances = parseAllowPrivate([`localhost:${sitePort}`]);
  assert.ok(allowances.ok);
  // "evil.example" is a public-looking name that resolves to loopback: only an allowance for that exact name could admit it.
  const resolver = createStaticResolver({ "evil.example": ["127.0.0.1"] });
  const fetch = createClientMetadataFetcher({
    resolver,
    allowPrivate: allowances.value,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.extraCa === false ? {} : { extraCa: readFileSync(join(dir, "cert.pem"), "utf8") }),
  });
  let fetches = 0;
  const resolve = createClientMetadataClients({ fetch: (url) => (fetches++, fetch(url)), extraRedirects: [CALLBACK] });
  return { resolve, fetches: () => fetches };
}

describe("Client ID Metadata Documents", { timeout: 60_000 }, () => {
  it("reads a valid document through the operator allowance and caches it", async () => {
    const { resolve, fetches } = clients();
    const first = await resolve(docUrl("/client.json"));
    assert.ok(first.ok, first.ok ? "" : first.reason);
    assert.equal(first.client.clientName, "ChatGPT (says so)");
    assert.deepEqual(first.client.redirectUris, [CALLBACK]);
    assert.equal(first.client.authMethod, "none");
    const again = await resolve(docUrl("/client.json"));
    assert.ok(again.ok);
    assert.equal(fetches(), 1, "the second resolution comes from the cache");
  });

  it("refuses a client_id URL on a private address, or a name resolving to one, without connecting", async () => {
    const { resolve } = clients();
    const before = { ...connections };
    const literal = await resolve(`https://127.0.0.1:${forbiddenPort}/client.json`);
    assert.ok(!literal.ok);
    assert.match(literal.reason, /network preflight refused/);
    const named = await resolve(`https://evil.example:${sitePort}/client.json`);
    assert.ok(!named.ok);
    assert.match(named.reason, /network preflight refused/);
    assert.equal(connections.forbidden, before.forbidden);
    assert.equal(connections.site, before.site, "nothing reached the allowed listener under another name either");
  });

  it("follows no redirect, so a redirect to a private address reaches nothing", async () => {
    const { resolve } = clients();
    const result = await resolve(docUrl("/to-private.json"));
    assert.ok(!result.ok);
    assert.match(result.reason, /redirect \(HTTP 302\); errand follows none/);
    assert.equal(connections.forbidden, 0);
  });

  it("refuses an oversized document, declared or streamed", async () => {
    const { resolve } = clients();
    for (const path of ["/big.json", "/chunked-big.json"]) {
      const result = await resolve(docUrl(path));
      assert.ok(!result.ok, path);
      assert.match(result.reason, /larger than 5120 bytes/);
    }
  });

  it("gives up on a document that does not arrive within its time bound", async () => {
    const { resolve } = clients({ timeoutMs: 300 });
    const result = await resolve(docUrl("/slow.json"));
    assert.ok(!result.ok);
    assert.match(result.reason, /did not answer within 300 ms/);
  });

  it("refuses a document whose client_id differs, that asks for a secret, or names a redirect errand does not send codes to", async () => {
    const { resolve } = clients();
    const other = await resolve(docUrl("/other-id.json"));
    assert.ok(!other.ok);
    assert.match(other.reason, /client_id is not exactly the URL/);
    const secret = await resolve(docUrl("/secret.json"));
    assert.ok(!secret.ok);
    assert.match(secret.reason, /token_endpoint_auth_method must be none/);
    const redirect = await resolve(docUrl("/evil-redirect.json"));
    assert.ok(!redirect.ok);
    assert.match(redirect.reason, /redirect_uri is not one errand sends codes to/);
  });

  it("refuses a certificate nobody trusts", async () => {
    const { resolve } = clients({ extraCa: false });
    const result = await resolve(docUrl("/client.json"));
    assert.ok(!result.ok);
    assert.match(result.reason, /could not be fetched/);
  });

  it("trusts a certificate through NODE_EXTRA_CA_CERTS, as errand serve does", async () => {
    const script = `
      import { createClientMetadataFetcher } from "./src/interfaces/http/oauth/clientMetadataFetch.ts";
      import { parseAllowPrivate } from "./src/policy/parseAllowPrivate.ts";
      import { createStaticResolver } from "./src/policy/staticResolver.ts";
      const allow = parseAllowPrivate(["localhost:${sitePort}"]);
      const fetch = createClientMetadataFetcher({ resolver: createStaticResolver({}), allowPrivate: allow.value });
      console.log(JSON.stringify(await fetch("${docUrl("/client.json")}")));`;
    // Asynchronously: the document server lives in this process and must keep answering.
    const run = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
      encoding: "utf8",
      timeout: 30_000,
    });
    const answer = JSON.parse(run.stdout.trim()) as { ok: boolean; text?: string };
    assert.ok(answer.ok);
    assert.match(answer.text ?? "", /ChatGPT \(says so\)/);
  });

  it("refuses client_id URLs the draft forbids before fetching anything", () => {
    assert.match(clientIdUrlProblem("https://example.com/") ?? "", /path/);
    assert.match(clientIdUrlProblem("https://example.com/a#f") ?? "", /fragment/);
    assert.match(clientIdUrlProblem("https://u:p@example.com/a") ?? "", /user name/);
    assert.match(clientIdUrlProblem("https://example.com/a/../b") ?? "", /normalized/);
    assert.equal(clientIdUrlProblem("https://chatgpt.com/oauth/client.json"), null);
  });
});

describe("Client ID Metadata Documents at /authorize and /token", { timeout: 60_000 }, () => {
  it("approves a document client end to end, shows its verified host and its self-declared name, and checks its redirect_uri", async () => {
    const { resolve } = clients();
    const h = await openAppHarness({ extraDeps: { clientMetadata: resolve } });
    try {
      const meta = (await (await h.request("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
      assert.equal(meta["client_id_metadata_document_supported"], true);
      const origin = "http://127.0.0.1:8787";
      const fetcher = inProcess(h.request);
      const clientId = docUrl("/client.json");
      const { challenge } = await pkcePair();
      const wrong = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:47999/other",
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      const refused = await openConsent(fetcher, `${origin}/authorize?${wrong.toString()}`);
      assert.equal(refused.status, 400);
      assert.match(refused.html, /not one this client registered/);
      const query = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: CALLBACK,
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      const page = await openConsent(fetcher, `${origin}/authorize?${query.toString()}`);
      assert.equal(page.status, 200);
      assert.match(page.html, /a name the client gave itself; errand cannot verify it/);
      assert.match(page.html, new RegExp(`published at <strong>localhost:${sitePort}</strong>`));
      const grant = await obtainGrant(fetcher, origin, OWNER_PASSWORD, CALLBACK, {}, clientId);
      assert.ok(grant.accessToken.length > 20, "the code was exchanged for tokens by the document client");
      const bad = await openConsent(
        fetcher,
        `${origin}/authorize?${new URLSearchParams({ ...Object.fromEntries(query), client_id: docUrl("/other-id.json") }).toString()}`,
      );
      assert.equal(bad.status, 400);
      assert.match(bad.html, /client_id is not exactly the URL/);
    } finally {
      await h.close();
    }
  });

  it("without a fetcher errand advertises no metadata documents and knows no URL client", async () => {
    const h = await openAppHarness();
    try {
      const meta = (await (await h.request("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
      assert.equal(meta["client_id_metadata_document_supported"], false);
      const page = await h.request(`/authorize?client_id=${encodeURIComponent(docUrl("/client.json"))}&response_type=code`);
      assert.equal(page.status, 400);
      assert.match(await page.text(), /Unknown client/);
    } finally {
      await h.close();
    }
  });
});
